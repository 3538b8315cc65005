CREATE TABLE `treasury_authorizations` (
	`nonce` text PRIMARY KEY NOT NULL,
	`tx_hash` text NOT NULL,
	`block_number` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `treasury_transfers` (
	`tx_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`block_number` integer NOT NULL,
	`direction` text NOT NULL,
	`counterparty` text NOT NULL,
	`amount` integer NOT NULL,
	`acknowledged` text,
	PRIMARY KEY(`tx_hash`, `log_index`)
);
--> statement-breakpoint
ALTER TABLE `withdrawals` ADD `receipt_block` integer;--> statement-breakpoint
ALTER TABLE `withdrawals` ADD `internal_agent_id` text REFERENCES agents(id);--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `authorization_nonce` text;--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `valid_before` integer;--> statement-breakpoint
CREATE INDEX `x402_payments_status_idx` ON `x402_payments` (`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `x402_payments_nonce_idx` ON `x402_payments` (`authorization_nonce`);