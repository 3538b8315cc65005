ALTER TABLE `bets` ADD `creator_key_id` text;--> statement-breakpoint
ALTER TABLE `bets` ADD `acceptor_key_id` text;--> statement-breakpoint
CREATE INDEX `bets_creator_key_idx` ON `bets` (`creator_key_id`);--> statement-breakpoint
ALTER TABLE `x402_sales` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `contracts` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `agent_keys` ADD `made_with` text;--> statement-breakpoint
ALTER TABLE `agent_keys` ADD `purpose` text DEFAULT 'key' NOT NULL;--> statement-breakpoint
CREATE INDEX `agent_keys_parent_idx` ON `agent_keys` (`parent_key_id`);--> statement-breakpoint
ALTER TABLE `loan_offers` ADD `key_id` text;--> statement-breakpoint
CREATE INDEX `loan_offers_key_idx` ON `loan_offers` (`key_id`);--> statement-breakpoint
ALTER TABLE `loans` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `made_with` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `key_id` text;--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `key_id` text;--> statement-breakpoint
CREATE INDEX `approvals_key_idx` ON `approvals` (`key_id`);--> statement-breakpoint
-- Keys made before their purpose was recorded: an MCP host's grant, and the access tokens made from it (the cap on keys in force leaves tokens out).
UPDATE agent_keys SET purpose = 'oauth_grant' WHERE id IN (SELECT key_id FROM oauth_grants);--> statement-breakpoint
UPDATE agent_keys SET purpose = 'oauth_token' WHERE parent_key_id IN (SELECT key_id FROM oauth_grants);
