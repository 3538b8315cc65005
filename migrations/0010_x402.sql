CREATE TABLE `x402_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`url` text NOT NULL,
	`method` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`pay_to` text NOT NULL,
	`internal_agent_id` text,
	`network` text NOT NULL,
	`x402_version` integer NOT NULL,
	`status` text NOT NULL,
	`transaction` text,
	`resource_status` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`internal_agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `x402_payments_agent_id_idx` ON `x402_payments` (`agent_id`,`created_at`);