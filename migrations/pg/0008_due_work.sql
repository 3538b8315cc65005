ALTER TABLE "bets" ADD COLUMN "resolve_at" bigint;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "next_charge_at" bigint;--> statement-breakpoint
CREATE INDEX "bets_status_resolve_idx" ON "bets" USING btree ("status","resolve_at");--> statement-breakpoint
CREATE INDEX "loan_offers_status_expires_idx" ON "loan_offers" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "subscriptions_next_charge_idx" ON "subscriptions" USING btree ("next_charge_at");--> statement-breakpoint
-- Due times of existing rows, for the due-work indexes (db/due.ts). A subscription's is exact for DAILY and WEEKLY and a lower bound for MONTHLY (28 days a period): the charge job stores the exact time when it finds the row not yet due.
UPDATE subscriptions SET next_charge_at = CASE WHEN status = 'PAST_DUE' THEN next_attempt_at WHEN frequency = 'DAILY' THEN anchor_at + next_period * 86400000 WHEN frequency = 'WEEKLY' THEN anchor_at + next_period * 604800000 ELSE anchor_at + next_period * 2419200000 END WHERE status IN ('ACTIVE', 'PAST_DUE');--> statement-breakpoint
-- An oracle bet's resolveAt is ISO text inside its JSON settings: created_at is a lower bound, and the oracle job stores the exact time when it finds the bet not yet due.
UPDATE bets SET resolve_at = created_at WHERE oracle_type <> 'MANUAL';
