CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_name` text NOT NULL,
	`owner_email` text NOT NULL,
	`description` text,
	`capabilities` text NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`api_key_hash` text NOT NULL,
	`owner_key_hash` text NOT NULL,
	`score` integer DEFAULT 0 NOT NULL,
	`rate_limit` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_api_key_hash_unique` ON `agents` (`api_key_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `agents_owner_key_hash_unique` ON `agents` (`owner_key_hash`);--> statement-breakpoint
CREATE TABLE `blocks` (
	`blocker_id` text NOT NULL,
	`blocked_id` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`blocker_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`blocked_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `blocks_pair_idx` ON `blocks` (`blocker_id`,`blocked_id`);--> statement-breakpoint
CREATE TABLE `score_events` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`reason` text NOT NULL,
	`change` integer NOT NULL,
	`reference_type` text,
	`reference_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `score_events_agent_id_idx` ON `score_events` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `bets` (
	`id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`acceptor_id` text,
	`description` text NOT NULL,
	`condition` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`oracle_type` text NOT NULL,
	`oracle` text,
	`status` text NOT NULL,
	`creator_outcome` text,
	`acceptor_outcome` text,
	`outcome` text,
	`winner_id` text,
	`resolved_by` text,
	`expires_at` integer NOT NULL,
	`matched_at` integer,
	`closed_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`creator_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`acceptor_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`winner_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bets_status_idx` ON `bets` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `bets_creator_id_idx` ON `bets` (`creator_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bets_acceptor_id_idx` ON `bets` (`acceptor_id`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `withdrawals_status_idx` ON `withdrawals` (`status`);--> statement-breakpoint
CREATE TABLE `console_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `console_sessions_agent_id_idx` ON `console_sessions` (`agent_id`);--> statement-breakpoint
CREATE TABLE `contracts` (
	`id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`counterparty_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`escrow_amount` integer NOT NULL,
	`currency` text NOT NULL,
	`conditions` text NOT NULL,
	`deadline_days` integer NOT NULL,
	`deadline_at` integer NOT NULL,
	`status` text NOT NULL,
	`signed_at` integer,
	`closed_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`creator_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`counterparty_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `contracts_status_idx` ON `contracts` (`status`,`deadline_at`);--> statement-breakpoint
CREATE INDEX `contracts_creator_id_idx` ON `contracts` (`creator_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `contracts_counterparty_id_idx` ON `contracts` (`counterparty_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`agent_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`agent_id` text,
	`kind` text NOT NULL,
	`currency` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`posting_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_owner_kind_currency_idx` ON `accounts` (`agent_id`,`kind`,`currency`);--> statement-breakpoint
CREATE TABLE `journal_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`reference_type` text NOT NULL,
	`reference_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `journal_entries_reference_idx` ON `journal_entries` (`reference_type`,`reference_id`);--> statement-breakpoint
CREATE TABLE `postings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entry_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`history_type` text NOT NULL,
	`counterparty_id` text,
	`history_agent_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `journal_entries`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `postings_history_idx` ON `postings` (`history_agent_id`,`id`) WHERE "postings"."history_agent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `postings_entry_id_idx` ON `postings` (`entry_id`);--> statement-breakpoint
CREATE TABLE `loan_offers` (
	`id` text PRIMARY KEY NOT NULL,
	`lender_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`interest_bps` integer NOT NULL,
	`duration_days` integer NOT NULL,
	`collateral_bps` integer NOT NULL,
	`status` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`lender_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `loan_offers_status_created_idx` ON `loan_offers` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `loan_offers_lender_id_idx` ON `loan_offers` (`lender_id`);--> statement-breakpoint
CREATE TABLE `loans` (
	`id` text PRIMARY KEY NOT NULL,
	`offer_id` text NOT NULL,
	`lender_id` text NOT NULL,
	`borrower_id` text NOT NULL,
	`principal` integer NOT NULL,
	`currency` text NOT NULL,
	`interest_bps` integer NOT NULL,
	`amount_due` integer NOT NULL,
	`amount_repaid` integer NOT NULL,
	`collateral` integer NOT NULL,
	`due_at` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`closed_at` integer,
	FOREIGN KEY (`offer_id`) REFERENCES `loan_offers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`lender_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`borrower_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `loans_offer_id_idx` ON `loans` (`offer_id`);--> statement-breakpoint
CREATE INDEX `loans_lender_id_idx` ON `loans` (`lender_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `loans_borrower_id_idx` ON `loans` (`borrower_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `loans_status_due_idx` ON `loans` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `bookings` (
	`id` text PRIMARY KEY NOT NULL,
	`quote_id` text NOT NULL,
	`service_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`rail` text NOT NULL,
	`status` text NOT NULL,
	`payment_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`quote_id`) REFERENCES `quotes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_quote_id_idx` ON `bookings` (`quote_id`);--> statement-breakpoint
CREATE INDEX `bookings_agent_id_idx` ON `bookings` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bookings_provider_id_idx` ON `bookings` (`provider_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`service_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`units` text NOT NULL,
	`breakdown` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `services`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `quotes_agent_id_idx` ON `quotes` (`agent_id`);--> statement-breakpoint
CREATE TABLE `services` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`price` integer NOT NULL,
	`currency` text NOT NULL,
	`pricing_unit` text NOT NULL,
	`active` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`provider_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `services_active_created_idx` ON `services` (`active`,`created_at`);--> statement-breakpoint
CREATE INDEX `services_provider_id_idx` ON `services` (`provider_id`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`sender_id` text,
	`recipient_id` text NOT NULL,
	`type` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`metadata` text,
	`read` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`sender_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `messages_recipient_idx` ON `messages` (`recipient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_pair_idx` ON `messages` (`sender_id`,`recipient_id`,`created_at`) WHERE "messages"."sender_id" IS NOT NULL;--> statement-breakpoint
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
CREATE INDEX `negotiations_status_expires_idx` ON `negotiations` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`from_agent_id` text NOT NULL,
	`to_agent_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`reason` text,
	`metadata` text,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`from_agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`to_agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `subscription_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`period` integer NOT NULL,
	`payment_id` text NOT NULL,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `subscriptions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscription_charges_period_idx` ON `subscription_charges` (`subscription_id`,`period`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`payer_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`frequency` text NOT NULL,
	`status` text NOT NULL,
	`anchor_at` integer NOT NULL,
	`next_period` integer NOT NULL,
	`failed_attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`cancelled_at` integer,
	`cancel_reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`payer_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `subscriptions_payer_id_idx` ON `subscriptions` (`payer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_recipient_id_idx` ON `subscriptions` (`recipient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_status_idx` ON `subscriptions` (`status`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`outcome` text NOT NULL,
	`http_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_agent_idx` ON `webhook_deliveries` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`event` text NOT NULL,
	`data` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_events_status_idx` ON `webhook_events` (`status`,`created_at`);--> statement-breakpoint
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