CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text,
	`operator` text NOT NULL,
	`action` text NOT NULL,
	`target` text,
	`details` text,
	`request_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_created_idx` ON `audit_log` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_operator_idx` ON `audit_log` (`operator`,`created_at`);--> statement-breakpoint
CREATE TABLE `operator_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_keys_key_hash_unique` ON `operator_keys` (`key_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `operator_keys_name_in_force_idx` ON `operator_keys` (`name`) WHERE "operator_keys"."revoked_at" IS NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_failed_idx` ON `webhook_deliveries` (`created_at`,`id`) WHERE "webhook_deliveries"."outcome" <> 'DELIVERED';