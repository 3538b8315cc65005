// The chain's money movements, each one balanced entry through the ledger. A withdrawal's money sits
// in the system's withdrawals-in-flight account between its debit and its outcome on chain.
import type { Op } from "../db";
import { post, type Posting } from "../ledger/ledger";
import { type AgentId } from "../ids";

const USDC = "USDC" as const;

const reference = (withdrawalId: string) => ({ type: "withdrawal", id: withdrawalId });
/** The withdrawal's `amount` into (positive) or out of (negative) the money in flight. */
const inFlight = (agentId: AgentId, amount: bigint): Posting => ({
  account: { agentId: null, kind: "withdrawals_in_flight", currency: USDC },
  amount,
  historyType: "SYSTEM",
  counterpartyId: agentId,
});

/** Debit at request time: the agent's available → withdrawals in flight. */
export function* debitWithdrawal(agentId: AgentId, amount: bigint, withdrawalId: string): Op<void> {
  yield* post({
    type: "WITHDRAWAL",
    reference: reference(withdrawalId),
    postings: [{ account: { agentId, kind: "available", currency: USDC }, amount: -amount, historyType: "WITHDRAWAL" }, inFlight(agentId, amount)],
  });
}

/** Confirmed on chain: the money has left the service. */
export function* settleWithdrawal(agentId: AgentId, amount: bigint, withdrawalId: string): Op<void> {
  yield* post({
    type: "WITHDRAWAL_CONFIRMED",
    reference: reference(withdrawalId),
    postings: [inFlight(agentId, -amount), { account: { agentId: null, kind: "external", currency: USDC }, amount, historyType: "SYSTEM", counterpartyId: agentId }],
  });
}

/** Failed on chain: the money goes back to the agent. */
export function* returnWithdrawal(agentId: AgentId, amount: bigint, withdrawalId: string): Op<void> {
  yield* post({
    type: "WITHDRAWAL_RETURNED",
    reference: reference(withdrawalId),
    postings: [inFlight(agentId, -amount), { account: { agentId, kind: "available", currency: USDC }, amount, historyType: "WITHDRAWAL_RETURNED" }],
  });
}
