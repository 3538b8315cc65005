CREATE TABLE "owner_notice_preferences" (
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"email" bigint NOT NULL,
	"webhook" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "owner_notice_preferences_owner_id_kind_pk" PRIMARY KEY("owner_id","kind")
);
--> statement-breakpoint
CREATE TABLE "owner_webhook_notices" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"event" text NOT NULL,
	"kind" text NOT NULL,
	"agent_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"link" text,
	"data" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"claimed_at" bigint,
	"delivered_at" bigint,
	"http_status" bigint,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "owner_webhooks" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"format" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "owner_notice_preferences" ADD CONSTRAINT "owner_notice_preferences_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_webhook_notices" ADD CONSTRAINT "owner_webhook_notices_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_webhook_notices" ADD CONSTRAINT "owner_webhook_notices_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_webhooks" ADD CONSTRAINT "owner_webhooks_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "owner_webhook_notices_event_idx" ON "owner_webhook_notices" USING btree ("owner_id","event");--> statement-breakpoint
CREATE INDEX "owner_webhook_notices_due_idx" ON "owner_webhook_notices" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "owner_webhook_notices_owner_idx" ON "owner_webhook_notices" USING btree ("owner_id","created_at");