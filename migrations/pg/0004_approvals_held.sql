ALTER TABLE "approvals" ADD COLUMN "held" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every approval held so far held its amount (hand-written: drizzle-kit writes schema, not data).
UPDATE approvals SET held = amount;
