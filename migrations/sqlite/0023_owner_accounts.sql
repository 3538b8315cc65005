CREATE TABLE `agent_owners` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`claimed_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `owners`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `agent_owners_owner_idx` ON `agent_owners` (`owner_id`,`claimed_at`);--> statement-breakpoint
CREATE TABLE `owner_links` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`email` text NOT NULL,
	`agent_id` text,
	`next` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `owner_links_email_idx` ON `owner_links` (`email`,`created_at`);--> statement-breakpoint
CREATE INDEX `owner_links_expires_idx` ON `owner_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `owners` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `owners_email_idx` ON `owners` (`email`);--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `owner_id` text REFERENCES owners(id);