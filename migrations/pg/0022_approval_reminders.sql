ALTER TABLE "approvals" ADD COLUMN "remind_at" bigint;--> statement-breakpoint
CREATE INDEX "approvals_remind_idx" ON "approvals" USING btree ("remind_at");