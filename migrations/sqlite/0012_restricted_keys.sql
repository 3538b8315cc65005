CREATE TABLE `agent_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`budgets` text NOT NULL,
	`allowlist` text,
	`parent_key_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_keys_key_hash_unique` ON `agent_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `agent_keys_agent_idx` ON `agent_keys` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `key_spending` (
	`key_id` text NOT NULL,
	`currency` text NOT NULL,
	`spent` integer NOT NULL,
	PRIMARY KEY(`key_id`, `currency`),
	FOREIGN KEY (`key_id`) REFERENCES `agent_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `journal_entries` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `approvals` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `key_id` text;