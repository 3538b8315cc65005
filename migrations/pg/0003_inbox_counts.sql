CREATE TABLE "inbox_counts" (
	"agent_id" text NOT NULL,
	"type" text NOT NULL,
	"messages" bigint NOT NULL,
	"unread" bigint NOT NULL,
	CONSTRAINT "inbox_counts_agent_id_type_pk" PRIMARY KEY("agent_id","type")
);
--> statement-breakpoint
ALTER TABLE "inbox_counts" ADD CONSTRAINT "inbox_counts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_unread_idx" ON "messages" USING btree ("recipient_id","created_at") WHERE "messages"."read" = 0;--> statement-breakpoint
-- The counts of the messages already there (hand-written: drizzle-kit writes schema, not data).
INSERT INTO inbox_counts (agent_id, type, messages, unread)
SELECT recipient_id, type, COUNT(*), SUM(CASE WHEN read = 0 THEN 1 ELSE 0 END) FROM messages GROUP BY recipient_id, type;
