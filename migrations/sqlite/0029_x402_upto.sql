ALTER TABLE `x402_payments` ADD `scheme` text DEFAULT 'exact' NOT NULL;--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `settled_amount` integer;--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `hold_id` integer;