CREATE TABLE `x402_gas_days` (
	`day` integer PRIMARY KEY NOT NULL,
	`claims` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `x402_discovered_resources` ADD `expires_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `x402_discovered_resources_expires_idx` ON `x402_discovered_resources` (`expires_at`);--> statement-breakpoint
CREATE INDEX `x402_sales_created_idx` ON `x402_sales` (`created_at`);--> statement-breakpoint
CREATE INDEX `x402_sales_resource_idx` ON `x402_sales` (`agent_id`,`resource`);