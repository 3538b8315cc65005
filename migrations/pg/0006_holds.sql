CREATE TABLE "holds" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"purpose" text NOT NULL,
	"reference_type" text NOT NULL,
	"reference_id" text NOT NULL,
	"state" text NOT NULL,
	"created_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "holds_reference_agent_idx" ON "holds" USING btree ("reference_type","reference_id","agent_id");--> statement-breakpoint
CREATE INDEX "holds_state_agent_idx" ON "holds" USING btree ("state","agent_id","currency");--> statement-breakpoint
-- Hand-written (drizzle-kit writes schema, not data): every open record that holds money gets its PENDING hold.
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT lender_id, amount, currency, 'LOAN_OFFER', 'loan_offer', id, 'PENDING', created_at, NULL FROM loan_offers WHERE status = 'OPEN';--> statement-breakpoint
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT borrower_id, collateral, currency, 'LOAN_COLLATERAL', 'loan', id, 'PENDING', created_at, NULL FROM loans WHERE status = 'ACTIVE' AND collateral > 0;--> statement-breakpoint
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT creator_id, amount, currency, 'BET_STAKE', 'bet', id, 'PENDING', created_at, NULL FROM bets WHERE status IN ('OPEN', 'MATCHED', 'DISPUTED');--> statement-breakpoint
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT acceptor_id, amount, currency, 'BET_STAKE', 'bet', id, 'PENDING', COALESCE(matched_at, created_at), NULL FROM bets WHERE status IN ('MATCHED', 'DISPUTED');--> statement-breakpoint
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT creator_id, escrow_amount, currency, 'CONTRACT_ESCROW', 'contract', id, 'PENDING', created_at, NULL FROM contracts WHERE status IN ('PENDING_SIGNATURE', 'ACTIVE');--> statement-breakpoint
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT agent_id, held, currency, 'APPROVAL', 'approval', id, 'PENDING', created_at, NULL FROM approvals WHERE status = 'PENDING' AND held > 0;--> statement-breakpoint
-- Held money no open record explains: one LEGACY hold per agent and currency, so the check's invariant holds on old data.
INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
SELECT a.agent_id, a.balance - COALESCE(h.total, 0), a.currency, 'LEGACY', 'legacy', a.currency, 'PENDING', g.created_at, NULL
FROM accounts a
  JOIN agents g ON g.id = a.agent_id
  LEFT JOIN (SELECT agent_id, currency, CAST(SUM(amount) AS BIGINT) AS total FROM holds GROUP BY agent_id, currency) h ON h.agent_id = a.agent_id AND h.currency = a.currency
WHERE a.kind = 'held' AND a.balance > COALESCE(h.total, 0);
