CREATE TABLE `oauth_rotated_refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_key_id` text NOT NULL,
	`rotated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`grant_key_id`) REFERENCES `oauth_grants`(`key_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `oauth_rotated_refresh_tokens_grant_idx` ON `oauth_rotated_refresh_tokens` (`grant_key_id`,`rotated_at`);--> statement-breakpoint
CREATE INDEX `oauth_rotated_refresh_tokens_expires_idx` ON `oauth_rotated_refresh_tokens` (`expires_at`);--> statement-breakpoint
ALTER TABLE `agent_keys` ADD `resource` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `registered_from` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `expires_at` integer;--> statement-breakpoint
CREATE INDEX `oauth_clients_registered_from_idx` ON `oauth_clients` (`registered_from`,`created_at`);--> statement-breakpoint
CREATE INDEX `oauth_clients_expires_idx` ON `oauth_clients` (`expires_at`);--> statement-breakpoint
-- Clients registered before this step: those without a grant are deleted a day after they registered, as new ones are (oauth/clients.ts).
UPDATE oauth_clients SET expires_at = created_at + 86400000 WHERE NOT EXISTS (SELECT 1 FROM oauth_grants WHERE oauth_grants.client_id = oauth_clients.id);--> statement-breakpoint
-- Grants made before keys carried their resource: the grant key and every key made from it are bound to the grant's resource, as createKey binds new ones.
WITH RECURSIVE bound(id, resource) AS (SELECT key_id, resource FROM oauth_grants UNION ALL SELECT agent_keys.id, bound.resource FROM agent_keys JOIN bound ON agent_keys.parent_key_id = bound.id) UPDATE agent_keys SET resource = (SELECT bound.resource FROM bound WHERE bound.id = agent_keys.id) WHERE id IN (SELECT id FROM bound);