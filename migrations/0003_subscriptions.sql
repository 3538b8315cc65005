CREATE TABLE `subscription_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`period` integer NOT NULL,
	`payment_id` text NOT NULL,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `subscriptions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscription_charges_period_idx` ON `subscription_charges` (`subscription_id`,`period`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`payer_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`frequency` text NOT NULL,
	`status` text NOT NULL,
	`anchor_at` integer NOT NULL,
	`next_period` integer NOT NULL,
	`failed_attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`cancelled_at` integer,
	`cancel_reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`payer_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `subscriptions_payer_id_idx` ON `subscriptions` (`payer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_recipient_id_idx` ON `subscriptions` (`recipient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_status_idx` ON `subscriptions` (`status`);