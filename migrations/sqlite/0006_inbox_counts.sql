CREATE TABLE `inbox_counts` (
	`agent_id` text NOT NULL,
	`type` text NOT NULL,
	`messages` integer NOT NULL,
	`unread` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `type`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `messages_unread_idx` ON `messages` (`recipient_id`,`created_at`) WHERE "messages"."read" = 0;--> statement-breakpoint
-- The counts of the messages already there (hand-written: drizzle-kit writes schema, not data).
INSERT INTO inbox_counts (agent_id, type, messages, unread)
SELECT recipient_id, type, COUNT(*), SUM(CASE WHEN read = 0 THEN 1 ELSE 0 END) FROM messages GROUP BY recipient_id, type;
