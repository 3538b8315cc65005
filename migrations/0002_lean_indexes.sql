DROP INDEX `payments_from_agent_id_idx`;--> statement-breakpoint
DROP INDEX `payments_to_agent_id_idx`;--> statement-breakpoint
DROP INDEX `messages_pair_idx`;--> statement-breakpoint
CREATE INDEX `messages_pair_idx` ON `messages` (`sender_id`,`recipient_id`,`created_at`) WHERE "messages"."sender_id" IS NOT NULL;