ALTER TABLE `x402_sales` ADD `scheme` text DEFAULT 'exact' NOT NULL;--> statement-breakpoint
ALTER TABLE `x402_sales` ADD `raw_tx` text;--> statement-breakpoint
ALTER TABLE `x402_sales` ADD `treasury_nonce` integer;--> statement-breakpoint
ALTER TABLE `x402_sales` ADD `payment_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `x402_sales_payment_id_idx` ON `x402_sales` (`agent_id`,`payment_id`);--> statement-breakpoint
CREATE INDEX `x402_sales_status_idx` ON `x402_sales` (`status`);