// Outflows held for the owner, as records: the amount (for a borrow, its collateral) waits in the
// agent's held account, with the exact request and a hash of its terms, until the owner approves (the
// request runs again, once, with the grant: takeGrant), declines, or APPROVAL_TTL_MS passes (the
// decisions are src/owners/decisions.ts). Declined, expired or failed: the
// hold goes back to the agent's available balance, the amount leaves the 24 h usage, and the agent is
// told (notification.financial with the reason).
import { clock, iso } from "../clock";
import { afterCommit, find, insert, select, update, type Op, type Row } from "../db";
import { invalidState, notFound } from "../errors";
import { type AgentId, sha256Hex, uuid } from "../ids";
import { canonicalJson, jsonText, readJson } from "../json";
import { expireHold, hold, pendingHold, voidHold } from "../ledger/escrow";
import { committingKeyId, untilCommittingKeyEnds } from "../keys/service";
import { toMajor, type Currency } from "../money";
import { DAY_MS, HOUR_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { namesOf } from "../agents/service";
import { tellOwner } from "../notices/owner";
import { heldSentence } from "./sentences";
import type { OutflowKind } from "./kinds";
import { approvals } from "./schema";
import { countOutflow, currentBucket, uncountOutflow } from "./usage";

export { OUTFLOW_KINDS, type OutflowKind } from "./kinds";

export const APPROVAL_TTL_MS = DAY_MS;
/** The owner is reminded this long before an approval expires. */
export const REMIND_BEFORE_MS = HOUR_MS;

const WHAT_IT_SAYS: Record<"approval.held" | "approval.reminder" | "approval.ended", (sentence: string, row: ApprovalRow) => { subject: string; text: string }> = {
  "approval.held": (sentence, row) => ({ subject: `Waiting for your approval: ${sentence}`, text: `${sentence} — waiting for your approval until ${utc(row.expiresAt)}.` }),
  "approval.reminder": (sentence, row) => ({ subject: `Still waiting, until ${utc(row.expiresAt)}: ${sentence}`, text: `${sentence} — still waiting for your approval; it expires at ${utc(row.expiresAt)}.` }),
  "approval.ended": (sentence, row) => ({
    subject: row.status === "EXPIRED" ? `Expired: ${sentence}` : `Approved but not made: ${sentence}`,
    text: row.status === "EXPIRED" ? `${sentence} — nobody decided in time: ${reasonWords(row)}. The money set aside for it is back.` : `${sentence} — you approved it, but it could not be made: ${reasonWords(row)}. The money set aside for it is back.`,
  }),
};
const utc = (ms: bigint | number) => `${iso(ms).slice(0, 16).replace("T", " ")} UTC`;
const reasonWords = (row: ApprovalRow) => (row.reason ?? "").replace(/^[A-Z_]+: /, "");

/** A write op step: the agent's owner hears of approval `id` (held, a reminder, or how it ended), in a sentence like the console's card. */
export function* tellOwnerOf(id: string, kind: keyof typeof WHAT_IT_SAYS): Op<void> {
  const row = (yield* find(approvals, id))!;
  const names = yield* namesOf([row.counterpartyId]);
  const sentence = heldSentence({ kind: row.kind, amount: row.amount, currency: row.currency, counterparty: row.counterpartyId && (names.get(row.counterpartyId) ?? row.counterpartyId), terms: readJson(row.terms) });
  const { subject, text } = WHAT_IT_SAYS[kind](sentence, row);
  const data = { approvalId: row.id, kind: row.kind, amount: toMajor(row.amount, row.currency), currency: row.currency, counterpartyId: row.counterpartyId, status: row.status, expiresAt: iso(row.expiresAt) };
  yield* tellOwner({ kind, agentId: row.agentId, event: `${kind}:${row.id}`, subject, text, link: `/console/approvals/${row.id}`, data });
}

/** Money leaving an agent because the agent asked: what the owner's policy is checked against. */
export type Outflow = {
  agentId: AgentId;
  kind: OutflowKind;
  amount: bigint;
  currency: Currency;
  /** Who receives it; null when nobody is named yet (an open bet or loan offer) or it leaves the service. */
  counterpartyId: AgentId | null;
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

export type ApprovalRow = Row<typeof approvals>;

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
function* giveBack(row: ApprovalRow, expired = false): Op<void> {
  if (row.held === 0n) return;
  const holdId = yield* pendingHold(reference(row.id), row.agentId);
  yield* (expired ? expireHold(holdId) : voidHold(holdId));
}

export function* approvalsByIds(ids: string[]): Op<ApprovalRow[]> {
  if (ids.length === 0) return [];
  return yield* select(approvals, `id IN (${ids.map(() => "?").join(", ")})`, ...ids);
}

/**
 * A write op, after the policy's checks passed: holds the amount (or what `held` says), counts the
 * amount in the 24 h usage (so outflows waiting for approval cannot jointly pass the cap either) and
 * records the approval.
 */
export function* holdOutflow(outflow: Outflow) {
  const id = uuid();
  const now = clock.nowMs();
  // Asked with a restricted key, it waits no longer than that key lasts (and ends when it is revoked).
  const expiresAt = yield* untilCommittingKeyEnds(now + APPROVAL_TTL_MS);
  const bucket = currentBucket();
  const held = outflow.held ?? outflow.amount;
  if (held > 0n) yield* hold({ agentId: outflow.agentId, amount: held, currency: outflow.currency, purpose: "APPROVAL", reference: reference(id) });
  yield* countOutflow(outflow.agentId, outflow.currency, outflow.amount);
  yield* insert(approvals, {
    id,
    agentId: outflow.agentId,
    kind: outflow.kind,
    status: "PENDING",
    amount: outflow.amount,
    held,
    currency: outflow.currency,
    counterpartyId: outflow.counterpartyId,
    terms: jsonText(outflow.terms),
    termsHash: termsHashOf(outflow),
    usageBucket: bucket,
    keyId: yield* committingKeyId(),
    createdAt: now,
    expiresAt,
    remindAt: expiresAt - REMIND_BEFORE_MS > now ? expiresAt - REMIND_BEFORE_MS : null,
  });
  yield* tellOwnerOf(id, "approval.held");
  const amount = toMajor(outflow.amount, outflow.currency);
  const what = held === outflow.amount ? "it is held" : `${toMajor(held, outflow.currency)} ${outflow.currency} of yours (its collateral) is held`;
  return {
    status: "AWAITING_APPROVAL" as const,
    approvalId: id,
    kind: outflow.kind,
    amount,
    currency: outflow.currency,
    expiresAt: iso(expiresAt),
    message: `${amount} ${outflow.currency} is above your owner's approval amount: ${what} until your owner approves or declines it (by ${iso(expiresAt)})`,
  };
}

/**
 * In the write op of the approved request: checks that the request is the one that was held (same
 * agent, kind, amount, currency, counterparty and terms) and still PENDING, gives the held money back
 * to the agent's available balance for the outflow to take, and marks the approval APPROVED — in the
 * same transaction as the outflow itself, so it happens once or not at all.
 */
export function* takeGrant(outflow: Outflow, grant: Grant): Op<void> {
  const row = yield* find(approvals, grant.approvalId, true);
  if (!row || row.agentId !== outflow.agentId) throw notFound("approval");
  if (row.status !== "PENDING") throw invalidState(`the approval is ${row.status}`);
  if (row.expiresAt <= clock.nowMs()) throw invalidState("the approval expired");
  if (row.termsHash !== termsHashOf(outflow)) {
    throw invalidState(`the terms changed since they were held: now ${toMajor(outflow.amount, outflow.currency)} ${outflow.currency}${outflow.counterpartyId ? ` to ${outflow.counterpartyId}` : ""}`);
  }
  yield* giveBack(row);
  yield* update(approvals, row.id, { status: "APPROVED", decidedAt: clock.nowMs(), remindAt: null });
  yield* notifyFinancial(row.agentId, "approval.approved", notice(row, null), `Your owner approved ${toMajor(row.amount, row.currency)} ${row.currency} (${row.kind})`);
  yield* afterCommit(() => (grant.taken = true));
}

const notice = (row: ApprovalRow, reason: string | null) => ({ approvalId: row.id, outflow: row.kind, amount: toMajor(row.amount, row.currency), currency: row.currency, reason });

/** Ends a PENDING approval without the outflow: hold released, usage given back, the agent told. */
export function* closeApproval(row: ApprovalRow, status: "DECLINED" | "EXPIRED" | "FAILED", reason: string): Op<void> {
  yield* giveBack(row, status === "EXPIRED");
  yield* uncountOutflow(row.agentId, row.currency, row.amount, Number(row.usageBucket));
  yield* update(approvals, row.id, { status, reason, decidedAt: clock.nowMs(), remindAt: null });
  if (status !== "DECLINED") yield* tellOwnerOf(row.id, "approval.ended");
  const amount = `${toMajor(row.amount, row.currency)} ${row.currency}`;
  const summary = { DECLINED: `Your owner declined ${amount} (${row.kind})`, EXPIRED: `${amount} (${row.kind}) expired: ${reason.slice(reason.indexOf(": ") + 2)}`, FAILED: `${amount} (${row.kind}) was approved but could not be made: ${reason}` }[status];
  yield* notifyFinancial(row.agentId, `approval.${status.toLowerCase()}`, notice(row, reason.split(":")[0]!), summary);
}
