CREATE TABLE "agent_freezes" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"brake" text NOT NULL,
	"action" text NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "owner_frozen_at" bigint;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "operator_frozen_at" bigint;--> statement-breakpoint
ALTER TABLE "agent_freezes" ADD CONSTRAINT "agent_freezes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_freezes_agent_idx" ON "agent_freezes" USING btree ("agent_id","created_at");