CREATE TABLE "agent_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" text NOT NULL,
	"budgets" text NOT NULL,
	"allowlist" text,
	"parent_key_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "agent_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "key_spending" (
	"key_id" text NOT NULL,
	"currency" text NOT NULL,
	"spent" bigint NOT NULL,
	CONSTRAINT "key_spending_key_id_currency_pk" PRIMARY KEY("key_id","currency")
);
--> statement-breakpoint
ALTER TABLE "journal_entries" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_spending" ADD CONSTRAINT "key_spending_key_id_agent_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."agent_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_keys_agent_idx" ON "agent_keys" USING btree ("agent_id","created_at");