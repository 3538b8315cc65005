CREATE TABLE `chain_deposits` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`block_number` integer NOT NULL,
	`from_address` text NOT NULL,
	`amount` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chain_deposits_log_idx` ON `chain_deposits` (`tx_hash`,`log_index`);--> statement-breakpoint
CREATE TABLE `deposit_addresses` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`address_index` integer NOT NULL,
	`address` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deposit_addresses_index_idx` ON `deposit_addresses` (`address_index`);--> statement-breakpoint
CREATE UNIQUE INDEX `deposit_addresses_address_idx` ON `deposit_addresses` (`address`);--> statement-breakpoint
CREATE TABLE `withdrawals` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`to_address` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`nonce` integer,
	`tx_hash` text,
	`raw_tx` text,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `withdrawals_agent_id_idx` ON `withdrawals` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `withdrawals_status_idx` ON `withdrawals` (`status`);