CREATE TABLE `agent_freezes` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`brake` text NOT NULL,
	`action` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `agent_freezes_agent_idx` ON `agent_freezes` (`agent_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `agents` ADD `owner_frozen_at` integer;--> statement-breakpoint
ALTER TABLE `agents` ADD `operator_frozen_at` integer;