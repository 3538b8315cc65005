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
CREATE INDEX `contracts_counterparty_id_idx` ON `contracts` (`counterparty_id`,`created_at`);