// Outflows held for the owner: the amount (for a borrow, its collateral) waits in the agent's held
// account, with the exact request and a hash of its terms, until the owner approves (the request runs
// again, once, with the grant), declines, or APPROVAL_TTL_MS passes. Declined, expired or failed: the
// hold goes back to the agent's available balance, the amount leaves the 24 h usage, and the agent is
// told (notification.financial with the reason).
import { clock, iso } from "../clock";
import { actingKey, afterCommit, all, FOR_UPDATE, get, read, run, write, type Query } from "../db";
import { ApiError, invalidState, notFound } from "../errors";
import { sha256Hex, uuid } from "../ids";
import { canonicalJson } from "../json";
import { expireHold, hold, pendingHold, voidHold } from "../ledger/escrow";
import { toMajor, type Currency } from "../money";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { countOutflow, currentBucket, uncountOutflow } from "./usage";

export const APPROVAL_TTL_MS = DAY_MS;

export const OUTFLOW_KINDS = ["PAYMENT", "X402", "BET", "BET_ACCEPT", "LOAN_OFFER", "LOAN_BORROW", "CONTRACT", "SUBSCRIPTION", "BOOKING", "WITHDRAWAL"] as const;
export type OutflowKind = (typeof OUTFLOW_KINDS)[number];

/** Money leaving an agent because the agent asked: what the owner's policy is checked against. */
export type Outflow = {
  agentId: string;
  kind: OutflowKind;
  amount: bigint;
  currency: Currency;
  /** Who receives it; null when nobody is named yet (an open bet or loan offer) or it leaves the service. */
  counterpartyId: string | null;
  /** The request as the agent sent it: held with the approval, run again once approved. */
  terms: Record<string, unknown>;
  /**
   * What the agent's own money puts at risk now, held while the owner decides; default the amount.
   * A borrow's amount is what it will owe, but what it risks now is its collateral.
   */
  held?: bigint;
};

/**
 * The owner's approval, passed to the request when it runs again. `taken` turns true once the op that
 * took it (takeGrant) has committed: the approve call that made the outflow knows it did.
 */
export type Grant = { approvalId: string; taken: boolean };

export type ApprovalRow = {
  id: string;
  agentId: string;
  kind: OutflowKind;
  status: string;
  amount: bigint;
  held: bigint;
  currency: Currency;
  counterpartyId: string | null;
  terms: string;
  termsHash: string;
  usageBucket: bigint;
  reason: string | null;
  result: string | null;
  createdAt: bigint;
  expiresAt: bigint;
  decidedAt: bigint | null;
};

const COLUMNS = `id, agent_id AS agentId, kind, status, amount, held, currency, counterparty_id AS counterpartyId, terms, terms_hash AS termsHash,
  usage_bucket AS usageBucket, reason, result, created_at AS createdAt, expires_at AS expiresAt, decided_at AS decidedAt`;

export const termsHashOf = (outflow: Outflow) =>
  sha256Hex(
    canonicalJson({
      kind: outflow.kind,
      agentId: outflow.agentId,
      amount: outflow.amount.toString(),
      currency: outflow.currency,
      counterpartyId: outflow.counterpartyId,
      terms: outflow.terms,
    }),
  );

const reference = (id: string) => ({ type: "approval", id });

/**
 * The held money goes back to the agent's available balance (nothing was held for a borrow without
 * collateral): the hold EXPIRED when the approval did, VOIDED otherwise.
 */
function* giveBack(row: ApprovalRow, expired = false): Query<void> {
  if (row.held === 0n) return;
  const holdId = yield* pendingHold(reference(row.id), row.agentId);
  yield* (expired ? expireHold(holdId) : voidHold(holdId));
}

export function* findApproval(id: string, lock = false): Query<ApprovalRow | null> {
  return yield* get<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
}

export function* approvalsByIds(ids: string[]): Query<ApprovalRow[]> {
  if (ids.length === 0) return [];
  return yield* all<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id IN (${ids.map(() => "?").join(", ")})`, ...ids);
}

/**
 * A write op, after the policy's checks passed: holds the amount (or what `held` says), counts the
 * amount in the 24 h usage (so outflows waiting for approval cannot jointly pass the cap either) and
 * records the approval.
 */
export function* holdOutflow(outflow: Outflow) {
  const id = uuid();
  const now = clock.nowMs();
  const bucket = currentBucket();
  const held = outflow.held ?? outflow.amount;
  if (held > 0n) yield* hold({ agentId: outflow.agentId, amount: held, currency: outflow.currency, purpose: "APPROVAL", reference: reference(id) });
  yield* countOutflow(outflow.agentId, outflow.currency, outflow.amount);
  yield* run(
    `INSERT INTO approvals (id, agent_id, kind, status, amount, held, currency, counterparty_id, terms, terms_hash, usage_bucket, reason, result, key_id, created_at, expires_at, decided_at)
     VALUES (?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, NULL)`,
    id,
    outflow.agentId,
    outflow.kind,
    outflow.amount,
    held,
    outflow.currency,
    outflow.counterpartyId,
    JSON.stringify(outflow.terms),
    termsHashOf(outflow),
    bucket,
    yield* actingKey(),
    now,
    now + APPROVAL_TTL_MS,
  );
  const amount = toMajor(outflow.amount, outflow.currency);
  const what = held === outflow.amount ? "it is held" : `${toMajor(held, outflow.currency)} ${outflow.currency} of yours (its collateral) is held`;
  return {
    status: "AWAITING_APPROVAL" as const,
    approvalId: id,
    kind: outflow.kind,
    amount,
    currency: outflow.currency,
    expiresAt: iso(now + APPROVAL_TTL_MS),
    message: `${amount} ${outflow.currency} is above your owner's approval amount: ${what} until your owner approves or declines it (within 24 h)`,
  };
}

/**
 * In the write op of the approved request: checks that the request is the one that was held (same
 * agent, kind, amount, currency, counterparty and terms) and still PENDING, gives the held money back
 * to the agent's available balance for the outflow to take, and marks the approval APPROVED — in the
 * same transaction as the outflow itself, so it happens once or not at all.
 */
export function* takeGrant(outflow: Outflow, grant: Grant): Query<void> {
  const row = yield* findApproval(grant.approvalId, true);
  if (!row || row.agentId !== outflow.agentId) throw notFound("approval");
  if (row.status !== "PENDING") throw invalidState(`the approval is ${row.status}`);
  if (Number(row.expiresAt) <= clock.nowMs()) throw invalidState("the approval expired");
  if (row.termsHash !== termsHashOf(outflow)) {
    throw invalidState(`the terms changed since they were held: now ${toMajor(outflow.amount, outflow.currency)} ${outflow.currency}${outflow.counterpartyId ? ` to ${outflow.counterpartyId}` : ""}`);
  }
  yield* giveBack(row);
  const now = clock.nowMs();
  yield* run("UPDATE approvals SET status = 'APPROVED', decided_at = ? WHERE id = ?", now, row.id);
  yield* notifyFinancial(row.agentId, "approval.approved", notice(row, null), `Your owner approved ${toMajor(row.amount, row.currency)} ${row.currency} (${row.kind})`);
  yield* afterCommit(() => (grant.taken = true));
}

const notice = (row: ApprovalRow, reason: string | null) => ({ approvalId: row.id, outflow: row.kind, amount: toMajor(row.amount, row.currency), currency: row.currency, reason });

/** Ends a PENDING approval without the outflow: hold released, usage given back, the agent told. */
function* close(row: ApprovalRow, status: "DECLINED" | "EXPIRED" | "FAILED", reason: string): Query<void> {
  yield* giveBack(row, status === "EXPIRED");
  yield* uncountOutflow(row.agentId, row.currency, row.amount, Number(row.usageBucket));
  yield* run("UPDATE approvals SET status = ?, reason = ?, decided_at = ? WHERE id = ?", status, reason, clock.nowMs(), row.id);
  const amount = `${toMajor(row.amount, row.currency)} ${row.currency}`;
  const summary = { DECLINED: `Your owner declined ${amount} (${row.kind})`, EXPIRED: `${amount} (${row.kind}) was not approved within 24 h`, FAILED: `${amount} (${row.kind}) was approved but could not be made: ${reason}` }[status];
  yield* notifyFinancial(row.agentId, `approval.${status.toLowerCase()}`, notice(row, reason.split(":")[0]!), summary);
}

const isDue = (row: ApprovalRow) => row.status === "PENDING" && Number(row.expiresAt) <= clock.nowMs();

/** The approval of `ownerAgentId`'s agent, locked, with its expiry applied if it is due (closed EXPIRED). */
function* settled(ownerAgentId: string, id: string): Query<ApprovalRow> {
  const row = yield* findApproval(id, true);
  if (!row || row.agentId !== ownerAgentId) throw notFound("approval");
  if (!isDue(row)) return row;
  yield* close(row, "EXPIRED", "APPROVAL_EXPIRED: not approved within 24 h");
  return (yield* findApproval(id))!;
}

/**
 * An owner's decision on a held outflow: due expiry applied, then `action` on the PENDING row. A
 * decision that is refused (already decided or expired, other terms) is thrown only after the write
 * committed, so an expiry it applied is kept. The row lock makes decisions exactly-once: of concurrent
 * ones, the first to lock the row acts, and the others find it decided.
 */
async function decide<T>(ownerAgentId: string, id: string, termsHash: string | undefined, action: (row: ApprovalRow) => Query<T>): Promise<T> {
  const outcome = await write(function* (): Query<T | ApiError> {
    const row = yield* settled(ownerAgentId, id);
    if (row.status !== "PENDING") return invalidState(`the approval is ${row.status}`);
    if (termsHash !== undefined && termsHash !== row.termsHash) return invalidState("the terms you decided on are not the ones held (termsHash differs)");
    return yield* action(row);
  });
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

export async function declineOutflow(ownerAgentId: string, id: string, termsHash: string | undefined): Promise<void> {
  await decide(ownerAgentId, id, termsHash, (row) => close(row, "DECLINED", "DECLINED_BY_OWNER: your owner declined it"));
}

/** Runs the held request again with the owner's grant; what it answered is kept with the approval. */
export type Executor = (row: ApprovalRow, grant: Grant) => Promise<unknown>;

/**
 * The owner approves: the request runs again as the agent, with the grant, and moves the money in
 * the same transaction that marks the approval APPROVED. If it cannot (the counterparty blocked the
 * agent meanwhile, a bet was taken, the policy was tightened…), the approval is FAILED with that
 * reason and the hold goes back. Of concurrent approves (and declines), only the one whose decision
 * committed first answers; the others are refused (409) as any later one would be.
 */
export async function approveOutflow(ownerAgentId: string, id: string, termsHash: string | undefined, execute: Executor): Promise<void> {
  const row = await decide(ownerAgentId, id, termsHash, function* (row) {
    return row;
  });
  const grant: Grant = { approvalId: row.id, taken: false };
  let answered: { result: unknown } | null = null;
  let failure = "INVALID_STATE: the request ran again but moved no money (the resource no longer asks for payment?)";
  try {
    answered = { result: await execute(row, grant) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    failure = `${error.code}: ${error.message}`;
  }
  const keep = ({ result }: { result: unknown }) => run("UPDATE approvals SET result = ? WHERE id = ?", JSON.stringify(result ?? null), row.id);
  if (grant.taken) {
    if (answered) await write(() => keep(answered));
    return;
  }
  // The request's op rolled back as a whole (or moved nothing). Unless another decision came first
  // (then this approve is refused, like any repeat), the approval is FAILED in an op of its own.
  await decide(ownerAgentId, id, undefined, function* (current) {
    yield* close(current, "FAILED", failure);
    if (answered) yield* keep(answered);
  });
}

/** Applies the approval's expiry if it is due, so no read shows it PENDING past its time (a write only then). */
export async function expireIfDue(agentId: string, id: string): Promise<void> {
  const row = await read(findApproval(id));
  if (row && row.agentId === agentId && isDue(row)) await write(() => settled(agentId, id));
}

/** The job (and reads of one agent's approvals): every PENDING approval past its expiry. */
export async function expireDueApprovals(agentId?: string): Promise<void> {
  const due = await read(
    all<{ id: string; agentId: string }>(
      `SELECT id, agent_id AS agentId FROM approvals WHERE status = 'PENDING' AND expires_at <= ? ${agentId ? "AND agent_id = ?" : ""} LIMIT 500`,
      clock.nowMs(),
      ...(agentId ? [agentId] : []),
    ),
  );
  for (const { id, agentId } of due) await write(() => settled(agentId, id));
}
