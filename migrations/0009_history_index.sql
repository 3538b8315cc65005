DROP INDEX `postings_account_id_idx`;--> statement-breakpoint
ALTER TABLE `postings` ADD `history_agent_id` text;--> statement-breakpoint
CREATE INDEX `postings_history_idx` ON `postings` (`history_agent_id`,`id`) WHERE "postings"."history_agent_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `posting_count` integer DEFAULT 0 NOT NULL;