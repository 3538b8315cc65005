CREATE TABLE `negotiations` (
	`id` text PRIMARY KEY NOT NULL,
	`initiator_id` text NOT NULL,
	`counterparty_id` text NOT NULL,
	`pair_key` text NOT NULL,
	`subject` text NOT NULL,
	`status` text NOT NULL,
	`current_offer` text NOT NULL,
	`offer_by` text NOT NULL,
	`history` text NOT NULL,
	`related_entity_type` text,
	`related_entity_id` text,
	`expires_at` integer NOT NULL,
	`accepted_offer_hash` text,
	`accepted_by` text,
	`accepted_at` integer,
	`approved_by` text,
	`approved_at` integer,
	`last_counter_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`initiator_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`counterparty_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `negotiations_pair_key_idx` ON `negotiations` (`pair_key`,`status`);--> statement-breakpoint
CREATE INDEX `negotiations_initiator_id_idx` ON `negotiations` (`initiator_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `negotiations_counterparty_id_idx` ON `negotiations` (`counterparty_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `negotiations_status_expires_idx` ON `negotiations` (`status`,`expires_at`);