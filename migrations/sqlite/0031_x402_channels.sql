CREATE TABLE `x402_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`url` text NOT NULL,
	`network` text NOT NULL,
	`pay_to` text NOT NULL,
	`receiver_authorizer` text NOT NULL,
	`asset` text NOT NULL,
	`asset_name` text NOT NULL,
	`asset_version` text NOT NULL,
	`withdraw_delay` integer NOT NULL,
	`salt` text NOT NULL,
	`channel_id` text NOT NULL,
	`currency` text NOT NULL,
	`deposit` integer NOT NULL,
	`deposit_nonce` text NOT NULL,
	`deposit_valid_before` integer NOT NULL,
	`signed` integer NOT NULL,
	`charged` integer NOT NULL,
	`status` text NOT NULL,
	`withdrawable_at` integer,
	`refunded` integer,
	`transaction` text,
	`key_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`closed_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_channels_channel_id_idx` ON `x402_channels` (`channel_id`);--> statement-breakpoint
CREATE INDEX `x402_channels_agent_idx` ON `x402_channels` (`agent_id`,`status`,`created_at`);