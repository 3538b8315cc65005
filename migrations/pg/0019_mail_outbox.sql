CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"event" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body_text" text NOT NULL,
	"body_html" text,
	"message_id" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"claimed_at" bigint,
	"sent_at" bigint,
	"delivered_to" text,
	"error" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "mail_outbox_event_recipient_idx" ON "mail_outbox" USING btree ("event","recipient");--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_created_idx" ON "mail_outbox" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_recipient_idx" ON "mail_outbox" USING btree ("recipient","created_at");