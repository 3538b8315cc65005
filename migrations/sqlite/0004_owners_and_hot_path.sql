CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`counterparty_id` text,
	`terms` text NOT NULL,
	`terms_hash` text NOT NULL,
	`usage_bucket` integer NOT NULL,
	`reason` text,
	`result` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`decided_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `approvals_agent_idx` ON `approvals` (`agent_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `approvals_due_idx` ON `approvals` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `outflow_usage` (
	`bucket` integer NOT NULL,
	`agent_id` text NOT NULL,
	`currency` text NOT NULL,
	`amount` integer NOT NULL,
	PRIMARY KEY(`bucket`, `agent_id`, `currency`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
DROP INDEX `journal_entries_reference_idx`;--> statement-breakpoint
ALTER TABLE `agents` ADD `score_events` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `policy` text;