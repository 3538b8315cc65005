// The movements the products use, each one balanced entry through post().
import type { Currency } from "../money";
import type { Op } from "../db";
import { post, type HistoryType, type Reference } from "./ledger";
import { type AgentId } from "../ids";

/** available → available between two agents. */
export function* transfer(args: {
  from: AgentId;
  to: AgentId;
  amount: bigint;
  currency: Currency;
  reference: Reference;
  entryType?: string;
  sentAs?: HistoryType;
  receivedAs?: HistoryType;
}): Op<void> {
  yield* post({
    type: args.entryType ?? "PAYMENT",
    reference: args.reference,
    postings: [
      { account: { agentId: args.from, kind: "available", currency: args.currency }, amount: -args.amount, historyType: args.sentAs ?? "PAYMENT_SENT", counterpartyId: args.to },
      { account: { agentId: args.to, kind: "available", currency: args.currency }, amount: args.amount, historyType: args.receivedAs ?? "PAYMENT_RECEIVED", counterpartyId: args.from },
    ],
  });
}

/** Money from the outside world (operator deposit, on-chain deposit) into an agent's available. */
export function* deposit(agentId: AgentId, amount: bigint, currency: Currency, reference: Reference): Op<void> {
  yield* post({
    type: "DEPOSIT",
    reference,
    postings: [
      { account: { agentId: null, kind: "external", currency }, amount: -amount, historyType: "SYSTEM", counterpartyId: agentId },
      { account: { agentId, kind: "available", currency }, amount, historyType: "DEPOSIT" },
    ],
  });
}

/**
 * The operator's correction of a mistaken movement: a compensating entry between the agent's available
 * balance and the outside world, the counter-account deposits are credited from — never an edit of what
 * was posted. A debit takes back at most what is available (INSUFFICIENT_BALANCE, as any debit).
 */
export function* correct(agentId: AgentId, amount: bigint, currency: Currency, direction: "credit" | "debit", reference: Reference): Op<void> {
  const signed = direction === "credit" ? amount : -amount;
  yield* post({
    type: "CORRECTION",
    reference,
    postings: [
      { account: { agentId: null, kind: "external", currency }, amount: -signed, historyType: "SYSTEM", counterpartyId: agentId },
      { account: { agentId, kind: "available", currency }, amount: signed, historyType: "CORRECTION" },
    ],
  });
}
