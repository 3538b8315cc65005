CREATE TABLE `x402_discovered_resources` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`resource` text NOT NULL,
	`entry` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_discovered_resources_resource_idx` ON `x402_discovered_resources` (`agent_id`,`resource`);--> statement-breakpoint
CREATE INDEX `x402_discovered_resources_created_idx` ON `x402_discovered_resources` (`created_at`);--> statement-breakpoint
CREATE TABLE `x402_sales` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`payer` text NOT NULL,
	`nonce` text NOT NULL,
	`pay_to` text NOT NULL,
	`amount` integer NOT NULL,
	`resource` text,
	`status` text NOT NULL,
	`tx_hash` text,
	`gas` integer NOT NULL,
	`error` text,
	`credited_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_sales_authorization_idx` ON `x402_sales` (`payer`,`nonce`);--> statement-breakpoint
CREATE INDEX `x402_sales_agent_idx` ON `x402_sales` (`agent_id`,`created_at`);