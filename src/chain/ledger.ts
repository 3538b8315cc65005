// The chain's money movements, each one balanced entry through the ledger.
import type { Query } from "../db";
import { post } from "../ledger/ledger";

const USDC = "USDC" as const;

/** Debit at request time: the agent's available → withdrawals in flight. */
export function* debitWithdrawal(agentId: string, amount: bigint, withdrawalId: string): Query<void> {
  yield* post({
    type: "WITHDRAWAL",
    reference: { type: "withdrawal", id: withdrawalId },
    postings: [
      { account: { agentId, kind: "available", currency: USDC }, amount: -amount, historyType: "WITHDRAWAL" },
      { account: { agentId: null, kind: "withdrawals_in_flight", currency: USDC }, amount, historyType: "SYSTEM", counterpartyId: agentId },
    ],
  });
}

/** Confirmed on chain: the money has left the service. */
export function* settleWithdrawal(agentId: string, amount: bigint, withdrawalId: string): Query<void> {
  yield* post({
    type: "WITHDRAWAL_CONFIRMED",
    reference: { type: "withdrawal", id: withdrawalId },
    postings: [
      { account: { agentId: null, kind: "withdrawals_in_flight", currency: USDC }, amount: -amount, historyType: "SYSTEM", counterpartyId: agentId },
      { account: { agentId: null, kind: "external", currency: USDC }, amount, historyType: "SYSTEM", counterpartyId: agentId },
    ],
  });
}

/** Failed on chain: the money goes back to the agent. */
export function* returnWithdrawal(agentId: string, amount: bigint, withdrawalId: string): Query<void> {
  yield* post({
    type: "WITHDRAWAL_RETURNED",
    reference: { type: "withdrawal", id: withdrawalId },
    postings: [
      { account: { agentId: null, kind: "withdrawals_in_flight", currency: USDC }, amount: -amount, historyType: "SYSTEM", counterpartyId: agentId },
      { account: { agentId, kind: "available", currency: USDC }, amount, historyType: "WITHDRAWAL_RETURNED" },
    ],
  });
}
