// Money from outside credited by the operator (fiat rails, tests): a deposit into the agent's available
// balance and its deposit.credited notice, in one write op.
import { getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { type AgentId, uuid } from "../ids";
import { deposit } from "../ledger/transfers";
import { toMajor, toMinor, type Currency } from "../money";
import { notifyFinancial } from "../webhooks/outbox";

/** A write op: the deposit, answered as POST /admin/deposits shows it. */
export function* creditDeposit(body: { agentId: AgentId; amount: number; currency: Currency; reference?: string }) {
  const amount = toMinor(body.amount, body.currency);
  const id = uuid();
  yield* getAgent(body.agentId);
  yield* deposit(body.agentId, amount, body.currency, { type: "deposit", id });
  yield* notifyFinancial(
    body.agentId,
    "deposit.credited",
    { depositId: id, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null },
    `Deposit credited: ${toMajor(amount, body.currency)} ${body.currency}`,
  );
  return { id, agentId: body.agentId, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null, createdAt: iso(clock.nowMs()) };
}
