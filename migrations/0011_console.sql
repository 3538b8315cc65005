CREATE TABLE `console_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `console_sessions_agent_id_idx` ON `console_sessions` (`agent_id`);