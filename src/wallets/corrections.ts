// The operator's correction of an agent's balance (a mistaken deposit, a credit owed): a compensating
// journal entry against the outside world, the counter-account a deposit is credited from, never an
// edit of what the ledger holds; the agent is told, with the operator's reason.
import { getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import type { ErrorCode } from "../errors";
import { type AgentId, uuid } from "../ids";
import { correct } from "../ledger/transfers";
import { toMajor, toMinor, type Currency } from "../money";
import { notifyFinancial } from "../webhooks/outbox";

/** What a correction can answer: an unknown agent, or a debit beyond what it has available. */
export const CORRECTION_ERRORS = ["NOT_FOUND", "INSUFFICIENT_BALANCE"] as const satisfies readonly ErrorCode[];

export type CorrectionRequest = { amount: number; currency: Currency; direction: "credit" | "debit"; reason: string };

/** A write op: the correction, answered as POST /admin/agents/{id}/correction shows it. */
export function* correctBalance(agentId: AgentId, body: CorrectionRequest) {
  const amount = toMinor(body.amount, body.currency);
  const id = uuid();
  yield* getAgent(agentId);
  yield* correct(agentId, amount, body.currency, body.direction, { type: "correction", id });
  const major = toMajor(amount, body.currency);
  const signed = body.direction === "credit" ? major : -major;
  yield* notifyFinancial(
    agentId,
    "balance.corrected",
    { correctionId: id, amount: signed, currency: body.currency, reason: body.reason },
    `Balance corrected by the operator: ${signed > 0 ? "+" : ""}${signed} ${body.currency} (${body.reason})`,
  );
  return { id, agentId, direction: body.direction, amount: major, currency: body.currency, reason: body.reason, createdAt: iso(clock.nowMs()) };
}
