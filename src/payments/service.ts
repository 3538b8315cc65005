// Payments between agents: pay() makes one, completed at once (a direct payment, a subscription charge,
// a booking); the payment as each party sees it; the caller's tier limits.
import { clock, iso } from "../clock";
import { actingKey, find, insertOnly, type Op, type Row } from "../db";
import { assertCanReach } from "../agents/blocks";
import { findAgent, type AgentRow } from "../agents/service";
import { TIERS, tierOf } from "../agents/tiers";
import { authorizeOutflow, OUTFLOW_ERRORS, type OutflowKind, type Sanction } from "../outflows/check";
import { invalid, notFound, type ErrorCode } from "../errors";
import { type AgentId, uuid } from "../ids";
import { transfer } from "../ledger/transfers";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { emit } from "../webhooks/outbox";
import { payments, type PaymentKind } from "./schema";
import { jsonText, readJson } from "../json";

type Payment = Row<typeof payments>;

/** The payment as `viewerId` sees it: the payer's restricted key is the payer's to know. */
export function paymentView(row: Payment, viewerId: string) {
  return {
    id: row.id,
    fromAgentId: row.fromAgentId,
    toAgentId: row.toAgentId,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    reason: row.reason,
    metadata: row.metadata === null ? null : readJson(row.metadata),
    kind: row.kind,
    status: row.status,
    keyId: viewerId === row.fromAgentId ? row.keyId : null,
    createdAt: iso(row.createdAt),
  };
}

/**
 * Inside write(): moves `amount` from payer to payee as one completed payment, with every rule a
 * transfer an agent starts must pass (recipient exists, not self, not blocked, the tier and the owner's
 * policy, funds), +1 reputation to the payer and payment.received to the payee. Subscriptions and
 * bookings use it too; `outflow` says what the agent asked for, as the owner's approval holds it.
 */
export function* pay(args: {
  fromAgentId: AgentId;
  toAgentId: AgentId;
  amount: bigint;
  currency: Currency;
  reason?: string | null;
  metadata?: Record<string, unknown> | null;
  kind: PaymentKind;
  outflow: { kind: OutflowKind; terms: Record<string, unknown> };
  sanction?: Sanction;
}): Op<Payment> {
  if (args.toAgentId === args.fromAgentId) throw invalid("you cannot pay yourself");
  // The payer's row, read alongside, is what the outflow check below reads (the op remembers it).
  yield* assertCanReach(args.toAgentId, args.fromAgentId, "recipient agent", findAgent(args.fromAgentId));
  yield* authorizeOutflow(
    { agentId: args.fromAgentId, kind: args.outflow.kind, amount: args.amount, currency: args.currency, counterpartyId: args.toAgentId, terms: args.outflow.terms },
    args.sanction,
  );
  const row: Payment = {
    id: uuid(),
    fromAgentId: args.fromAgentId,
    toAgentId: args.toAgentId,
    amount: args.amount,
    currency: args.currency,
    reason: args.reason ?? null,
    metadata: args.metadata ? jsonText(args.metadata) : null,
    kind: args.kind,
    status: "COMPLETED",
    keyId: yield* actingKey(),
    createdAt: BigInt(clock.nowMs()),
  };
  yield* insertOnly(payments, row);
  yield* transfer({ from: row.fromAgentId, to: row.toAgentId, amount: row.amount, currency: row.currency, reference: { type: "payment", id: row.id } });
  yield* adjustScore(row.fromAgentId, "PAYMENT_COMPLETED", { type: "payment", id: row.id });
  const amount = toMajor(row.amount, row.currency);
  yield* emit(
    row.toAgentId,
    "payment.received",
    { paymentId: row.id, fromAgentId: row.fromAgentId, amount, currency: row.currency, reason: row.reason },
    { subject: `Payment received: ${amount} ${row.currency}`, body: row.reason ?? "" },
  );
  return row;
}

/** What sendPayment answers: the payee unknown (or the payer itself, or blocked by it), short of money, or refused by the outflow check. */
export const SEND_PAYMENT_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export type SendPayment = { toAgentId: AgentId; amount: number; currency: Currency; reason?: string; metadata?: Record<string, unknown> };

export function* sendPayment(fromAgentId: AgentId, body: SendPayment, sanction?: Sanction) {
  const amount = toMinor(body.amount, body.currency);
  const outflow = { kind: "PAYMENT" as const, terms: body };
  return paymentView(yield* pay({ fromAgentId, toAgentId: body.toAgentId, amount, currency: body.currency, reason: body.reason, metadata: body.metadata, kind: "DIRECT", outflow, sanction }), fromAgentId);
}

/** The agent's per-transaction limit from its reputation tier, every tier's, and how to reach the next. */
export function limitsView(agent: AgentRow) {
  const score = Number(agent.score);
  const current = tierOf(score);
  const next = TIERS.find((tier) => tier.minScore > score);
  return {
    agentId: agent.id,
    tier: current.tier,
    score,
    maxPerTransaction: current.maxPerTransaction,
    allTiers: TIERS.map(({ tier, maxPerTransaction }) => ({ tier, maxPerTransaction })),
    howToIncrease: next
      ? `Reach a score of ${next.minScore} for ${next.tier} (${next.maxPerTransaction} USD per transaction): +1 per completed payment, +5 per loan repaid on time, +3 per contract fulfilled, +2 per bet won.`
      : "You are at the highest tier.",
  };
}

/** A payment as seen by one of its parties; anyone else gets 404. */
export function* getPayment(agentId: AgentId, id: string) {
  const row = yield* find(payments, id);
  if (!row || (row.fromAgentId !== agentId && row.toAgentId !== agentId)) throw notFound("payment");
  return paymentView(row, agentId);
}
