// The one escrow mechanism of every product (loan offers, collateral, bets, contracts):
// hold moves money from an agent's available into its held account; release moves held money to
// any agent's available (the holder itself for a return). Both are single balanced entries.
import type { Currency } from "../money";
import type { Query } from "../db";
import { post, type HistoryType } from "./ledger";

type Reference = { type: string; id: string };

export function* hold(agentId: string, amount: bigint, currency: Currency, reference: Reference): Query<void> {
  yield* post({
    type: "ESCROW_HOLD",
    reference,
    postings: [
      { account: { agentId, kind: "available", currency }, amount: -amount, historyType: "ESCROW_HOLD" },
      { account: { agentId, kind: "held", currency }, amount, historyType: "ESCROW_HOLD" },
    ],
  });
}

/** Held money of `holder` → available of `to` (`to === holder` returns it). */
export function* release(args: {
  holder: string;
  to: string;
  amount: bigint;
  currency: Currency;
  reference: Reference;
  historyType?: HistoryType;
}): Query<void> {
  const returned = args.holder === args.to;
  yield* post({
    type: returned ? "ESCROW_RETURN" : "ESCROW_PAYOUT",
    reference: args.reference,
    postings: [
      { account: { agentId: args.holder, kind: "held", currency: args.currency }, amount: -args.amount, historyType: returned ? "ESCROW_RELEASE" : "ESCROW_PAYOUT", counterpartyId: returned ? null : args.to },
      { account: { agentId: args.to, kind: "available", currency: args.currency }, amount: args.amount, historyType: args.historyType ?? (returned ? "ESCROW_RELEASE" : "ESCROW_PAYOUT"), counterpartyId: returned ? null : args.holder },
    ],
  });
}
