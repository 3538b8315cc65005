CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"counterparty_id" text,
	"terms" text NOT NULL,
	"terms_hash" text NOT NULL,
	"usage_bucket" bigint NOT NULL,
	"reason" text,
	"result" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"decided_at" bigint
);
--> statement-breakpoint
CREATE TABLE "outflow_usage" (
	"bucket" bigint NOT NULL,
	"agent_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	CONSTRAINT "outflow_usage_bucket_agent_id_currency_pk" PRIMARY KEY("bucket","agent_id","currency")
);
--> statement-breakpoint
DROP INDEX "journal_entries_reference_idx";--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "score_events" text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "policy" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outflow_usage" ADD CONSTRAINT "outflow_usage_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approvals_agent_idx" ON "approvals" USING btree ("agent_id","status","created_at");--> statement-breakpoint
CREATE INDEX "approvals_due_idx" ON "approvals" USING btree ("status","expires_at");