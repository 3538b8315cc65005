// The one escrow mechanism of every product, as records (TigerBeetle's pending transfers): hold()
// moves money from an agent's available into its held account and records a PENDING hold; the hold
// then ends once, whole, by postHold (paid to another agent), voidHold (returned to the holder) or
// expireHold (returned at its feature's deadline). Each movement is one balanced entry, written in
// the same op as the hold's state, so the held balance is always the sum of the PENDING holds.
// Two x402 holds end otherwise. An upto payment's maximum ends by postHoldInPart: part paid out and
// the rest returned in the same entry. A batch-settlement channel's deposit is paid out in parts, each
// charged voucher leaving the service (spendFromHold): the hold's amount is what remains, so the held
// balance stays the sum of the PENDING holds, and voiding it gives back the rest. Every other hold
// ends whole (a loan's collateral, a contract's escrow, a bet's stake).
import { clock } from "../clock";
import { get, insertId, type Op } from "../db";
import type { Currency } from "../money";
import { post, type AccountRef, type HistoryType, type Posting, type Reference } from "./ledger";
import { type AgentId } from "../ids";

export type HoldPurpose = "LOAN_OFFER" | "LOAN_COLLATERAL" | "BET_STAKE" | "CONTRACT_ESCROW" | "APPROVAL" | "X402_UPTO" | "X402_CHANNEL";

/** Moves `amount` into the agent's held account for `reference`; returns the hold's id. */
export function* hold(args: { agentId: AgentId; amount: bigint; currency: Currency; purpose: HoldPurpose; reference: Reference }): Op<bigint> {
  const { agentId, amount, currency, reference } = args;
  yield* post({
    type: "ESCROW_HOLD",
    reference,
    postings: [
      { account: { agentId, kind: "available", currency }, amount: -amount, historyType: "ESCROW_HOLD" },
      { account: { agentId, kind: "held", currency }, amount, historyType: "ESCROW_HOLD" },
    ],
  });
  return yield* insertId(
    `INSERT INTO holds (agent_id, amount, currency, purpose, reference_type, reference_id, state, created_at, closed_at)
     VALUES (?, ?, ?, ?, ?, ?, 'PENDING', ?, NULL)`,
    agentId,
    amount,
    currency,
    args.purpose,
    reference.type,
    reference.id,
    clock.nowMs(),
  );
}

/** The PENDING hold `agentId` made for `reference`. Its absence is a bug of the caller, not bad input. */
export function* pendingHold(reference: Reference, agentId: AgentId): Op<bigint> {
  const row = yield* get<{ id: bigint }>(
    "SELECT id FROM holds WHERE reference_type = ? AND reference_id = ? AND agent_id = ? AND state = 'PENDING'",
    reference.type,
    reference.id,
    agentId,
  );
  if (!row) throw new Error(`ledger: no pending hold of ${agentId} for ${reference.type} ${reference.id}`);
  return row.id;
}

type ClosedHold = { agentId: AgentId; amount: bigint; currency: Currency; referenceType: string; referenceId: string };

/** PENDING → `state`, exactly once: of two ops closing the same hold, the second finds it closed. */
function* close(holdId: bigint, state: "POSTED" | "VOIDED" | "EXPIRED"): Op<ClosedHold> {
  const row = yield* get<ClosedHold>(
    `UPDATE holds SET state = ?, closed_at = ? WHERE id = ? AND state = 'PENDING'
     RETURNING agent_id AS agentId, amount, currency, reference_type AS referenceType, reference_id AS referenceId`,
    state,
    clock.nowMs(),
    holdId,
  );
  if (!row) throw new Error(`ledger: hold ${holdId} is not pending`);
  return row;
}

/**
 * Pays the whole hold to `to`'s available balance. The entry carries the hold's reference unless the
 * payment belongs to something else (a loan offer's hold disbursed as the loan).
 */
export function* postHold(holdId: bigint, to: AgentId, options: { reference?: Reference; historyType?: HistoryType } = {}): Op<void> {
  const held = yield* close(holdId, "POSTED");
  if (held.agentId === to) throw new Error(`ledger: hold ${holdId} posted to its holder (void it instead)`);
  yield* post({
    type: "ESCROW_PAYOUT",
    reference: options.reference ?? { type: held.referenceType, id: held.referenceId },
    postings: [
      { account: { agentId: held.agentId, kind: "held", currency: held.currency }, amount: -held.amount, historyType: "ESCROW_PAYOUT", counterpartyId: to },
      { account: { agentId: to, kind: "available", currency: held.currency }, amount: held.amount, historyType: options.historyType ?? "ESCROW_PAYOUT", counterpartyId: held.agentId },
    ],
  });
}

/**
 * Pays `amount` (at most the hold) of the hold to `to` (an agent's available balance, or a system
 * account) and returns the rest to its holder, in one entry under the hold's reference.
 */
export function* postHoldInPart(holdId: bigint, amount: bigint, to: AccountRef, historyType: HistoryType): Op<void> {
  const held = yield* close(holdId, "POSTED");
  if (amount < 0n || amount > held.amount) throw new Error(`ledger: hold ${holdId} of ${held.amount} cannot pay ${amount}`);
  const postings: Posting[] = [{ account: { agentId: held.agentId, kind: "held", currency: held.currency }, amount: -held.amount, historyType: "ESCROW_PAYOUT", counterpartyId: to.agentId }];
  if (amount > 0n) postings.push({ account: to, amount, historyType, counterpartyId: held.agentId });
  const rest = held.amount - amount;
  if (rest > 0n) postings.push({ account: { agentId: held.agentId, kind: "available", currency: held.currency }, amount: rest, historyType: "ESCROW_RELEASE" });
  yield* post({ type: "ESCROW_PAYOUT", reference: { type: held.referenceType, id: held.referenceId }, postings });
}

/**
 * Pays `amount` of a PENDING hold out of the service (to the `external` account): the hold keeps the
 * rest. Refused (a bug of the caller) if the hold is not pending or holds less.
 */
export function* spendFromHold(holdId: bigint, amount: bigint, historyType: HistoryType): Op<void> {
  const held = yield* get<ClosedHold>(
    `UPDATE holds SET amount = amount - ? WHERE id = ? AND state = 'PENDING' AND amount >= ?
     RETURNING agent_id AS agentId, amount, currency, reference_type AS referenceType, reference_id AS referenceId`,
    amount,
    holdId,
    amount,
  );
  if (!held) throw new Error(`ledger: hold ${holdId} is not pending or holds less than ${amount}`);
  yield* post({
    type: "ESCROW_PAYOUT",
    reference: { type: held.referenceType, id: held.referenceId },
    postings: [
      { account: { agentId: held.agentId, kind: "held", currency: held.currency }, amount: -amount, historyType },
      { account: { agentId: null, kind: "external", currency: held.currency }, amount, historyType: "SYSTEM", counterpartyId: held.agentId },
    ],
  });
}

/** Returns the whole hold to its holder (cancelled, declined, a bet winner's own stake, a repaid loan's collateral). */
export function* voidHold(holdId: bigint): Op<void> {
  yield* giveBack(yield* close(holdId, "VOIDED"));
}

/** Returns the whole hold to its holder because its feature's deadline passed. */
export function* expireHold(holdId: bigint): Op<void> {
  yield* giveBack(yield* close(holdId, "EXPIRED"));
}

function* giveBack(held: ClosedHold): Op<void> {
  yield* post({
    type: "ESCROW_RETURN",
    reference: { type: held.referenceType, id: held.referenceId },
    postings: [
      { account: { agentId: held.agentId, kind: "held", currency: held.currency }, amount: -held.amount, historyType: "ESCROW_RELEASE" },
      { account: { agentId: held.agentId, kind: "available", currency: held.currency }, amount: held.amount, historyType: "ESCROW_RELEASE" },
    ],
  });
}
