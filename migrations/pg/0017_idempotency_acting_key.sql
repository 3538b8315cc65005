-- Rows stored before Idempotency-Keys were scoped to the acting key do not say which key made them:
-- 'any' (any key of the agent replays them, as before); they expire within 24 h. New rows always name theirs.
ALTER TABLE "idempotency_keys" ADD COLUMN "acting_key" text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "acting_key" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_agent_id_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_agent_id_key_acting_key_pk" PRIMARY KEY("agent_id","key","acting_key");
