CREATE TABLE `owner_notice_preferences` (
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`email` integer NOT NULL,
	`webhook` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `kind`),
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `owner_webhook_notices` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`event` text NOT NULL,
	`kind` text NOT NULL,
	`agent_id` text NOT NULL,
	`agent_name` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`link` text,
	`data` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`claimed_at` integer,
	`delivered_at` integer,
	`http_status` integer,
	`error` text,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owner_webhook_notices_event_idx` ON `owner_webhook_notices` (`owner_id`,`event`);--> statement-breakpoint
CREATE INDEX `owner_webhook_notices_due_idx` ON `owner_webhook_notices` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `owner_webhook_notices_owner_idx` ON `owner_webhook_notices` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `owner_webhooks` (
	`owner_id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`format` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action
);
