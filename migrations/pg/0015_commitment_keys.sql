ALTER TABLE "bets" ADD COLUMN "creator_key_id" text;--> statement-breakpoint
ALTER TABLE "bets" ADD COLUMN "acceptor_key_id" text;--> statement-breakpoint
ALTER TABLE "x402_sales" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "contracts" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD COLUMN "made_with" text;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD COLUMN "purpose" text DEFAULT 'key' NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_offers" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "made_with" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "key_id" text;--> statement-breakpoint
CREATE INDEX "bets_creator_key_idx" ON "bets" USING btree ("creator_key_id");--> statement-breakpoint
CREATE INDEX "agent_keys_parent_idx" ON "agent_keys" USING btree ("parent_key_id");--> statement-breakpoint
CREATE INDEX "loan_offers_key_idx" ON "loan_offers" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "approvals_key_idx" ON "approvals" USING btree ("key_id");--> statement-breakpoint
-- Keys made before their purpose was recorded: an MCP host's grant, and the access tokens made from it (the cap on keys in force leaves tokens out).
UPDATE agent_keys SET purpose = 'oauth_grant' WHERE id IN (SELECT key_id FROM oauth_grants);--> statement-breakpoint
UPDATE agent_keys SET purpose = 'oauth_token' WHERE parent_key_id IN (SELECT key_id FROM oauth_grants);
