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
CREATE INDEX `loans_status_due_idx` ON `loans` (`status`,`due_at`);