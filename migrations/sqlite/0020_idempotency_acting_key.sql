PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_idempotency_keys` (
	`agent_id` text NOT NULL,
	`key` text NOT NULL,
	`acting_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `key`, `acting_key`)
);
--> statement-breakpoint
-- Rows stored before Idempotency-Keys were scoped to the acting key do not say which key made them:
-- 'any' (any key of the agent replays them, as before); they expire within 24 h. New rows always name theirs.
INSERT INTO `__new_idempotency_keys`("agent_id", "key", "acting_key", "request_hash", "status", "body", "created_at") SELECT "agent_id", "key", 'any', "request_hash", "status", "body", "created_at" FROM `idempotency_keys`;--> statement-breakpoint
DROP TABLE `idempotency_keys`;--> statement-breakpoint
ALTER TABLE `__new_idempotency_keys` RENAME TO `idempotency_keys`;--> statement-breakpoint
PRAGMA foreign_keys=ON;