// Every commitment that outlives the request that made it records the restricted key whose request
// made it (null: the agent key), and that key's chain governs every later movement of money it causes
// (docs/delegation.md, "What a key started"):
// - a movement made for the commitment later, with no request behind it — a subscription's charge, an
//   approved outflow running again, an x402 payment's debit after the resource answered — runs as that
//   key: the chain must still be in force (403 KEY_INACTIVE otherwise) and the amount counts against
//   its budgets, inside the same write as the movement (outflows/budget.ts);
// - money left in escrow for it (an open loan offer, an untaken bet, an approval's hold) is given back
//   when the key stops being in force: its due time is never later than the key's expiry, and is
//   brought to now when the key is revoked (revokeKeys), so the feature's own due work expires it;
//   an x402 batch-settlement channel's deposit (held until the channel closes) has no due column,
//   since only the chain can close it (the seller's refund, else the escrow's timed withdrawal): the
//   x402.channels-close job starts closing every OPEN channel whose key's chain is not in force
//   (keys/service.ts keyChainInForce; x402/batch/close.ts), round after round until the chain lets it,
//   and no voucher is signed on it once its key's chain has ended (chainInForce, x402/batch/pay.ts);
// - a request of another restricted key that releases the agent's money to the other party (the last
//   condition of a contract, a bet's outcome conceded, a loan repaid) is that key's outflow: in force,
//   its allowlist, and its budgets unless its own chain made (and so counted) the commitment
//   (authorizeRelease, outflows/release.ts; a frozen agent makes none but a repayment);
// - what the terms already owe (a defaulted loan's collateral, a breached contract's escrow back, a
//   settled bet) and money coming in are never refused.
// test/credentials.test.ts makes each of these with every kind of credential and ends the credential
// every way it can end: a commitment kind without a row there fails it.
import { clock } from "../clock";
import { run, type Op } from "../db";

export type Commitment = {
  /** Where it is stored, and the column naming the restricted key that made it. */
  table: string;
  keyColumn: string;
  /** What makes a row still able to move money because of its key. */
  open: string;
  /** Its due column, brought to now when its key is revoked (the feature's due work then ends it); null: none — re-checked at its next movement, or (x402_channel) found by its feature's job. */
  endsAt: string | null;
};

export const COMMITMENTS = {
  subscription: { table: "subscriptions", keyColumn: "key_id", open: "status IN ('ACTIVE', 'PAST_DUE')", endsAt: null },
  approval: { table: "approvals", keyColumn: "key_id", open: "status = 'PENDING'", endsAt: "expires_at" },
  loan_offer: { table: "loan_offers", keyColumn: "key_id", open: "status = 'OPEN'", endsAt: "expires_at" },
  bet: { table: "bets", keyColumn: "creator_key_id", open: "status = 'OPEN'", endsAt: "expires_at" },
  contract: { table: "contracts", keyColumn: "key_id", open: "status IN ('PENDING_SIGNATURE', 'ACTIVE')", endsAt: null },
  loan: { table: "loans", keyColumn: "key_id", open: "status = 'ACTIVE'", endsAt: null },
  x402_payment: { table: "x402_payments", keyColumn: "key_id", open: "status = 'PENDING'", endsAt: null },
  x402_sale: { table: "x402_sales", keyColumn: "key_id", open: "credited_at IS NULL", endsAt: null },
  x402_channel: { table: "x402_channels", keyColumn: "key_id", open: "status = 'OPEN'", endsAt: null },
} as const satisfies Record<string, Commitment>;

export type CommitmentKind = keyof typeof COMMITMENTS;

/** A write op, in the revocation's transaction: what the revoked keys left in escrow falls due now. */
export function* endCommitmentsOf(keyIds: string[]): Op<void> {
  if (keyIds.length === 0) return;
  const now = clock.nowMs();
  const marks = keyIds.map(() => "?").join(", ");
  for (const commitment of Object.values(COMMITMENTS) as Commitment[]) {
    if (commitment.endsAt === null) continue;
    const { table, keyColumn, open, endsAt } = commitment;
    yield* run(`UPDATE ${table} SET ${endsAt} = ? WHERE ${keyColumn} IN (${marks}) AND ${open} AND ${endsAt} > ?`, now, ...keyIds, now);
  }
}
