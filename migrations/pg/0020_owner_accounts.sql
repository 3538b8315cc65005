CREATE TABLE "agent_owners" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"claimed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "owner_links" (
	"id" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"agent_id" text,
	"next" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "owners" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "owner_id" text;--> statement-breakpoint
ALTER TABLE "agent_owners" ADD CONSTRAINT "agent_owners_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_owners" ADD CONSTRAINT "agent_owners_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_links" ADD CONSTRAINT "owner_links_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_owners_owner_idx" ON "agent_owners" USING btree ("owner_id","claimed_at");--> statement-breakpoint
CREATE INDEX "owner_links_email_idx" ON "owner_links" USING btree ("email","created_at");--> statement-breakpoint
CREATE INDEX "owner_links_expires_idx" ON "owner_links" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "owners_email_idx" ON "owners" USING btree ("email");--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;