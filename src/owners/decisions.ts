// The owner's decisions on held outflows (src/outflows/approvals.ts keeps the records): approve — the
// request runs again with the grant —, decline, and the expiry of what nobody decided in time.
import { frozenError } from "../agents/freeze";
import { findAgent } from "../agents/service";
import { clock } from "../clock";
import { find, update, write, type Op } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { ApiError, invalidState, notFound } from "../errors";
import { closeApproval, tellOwnerOf, type ApprovalRow, type Grant } from "../outflows/approvals";
import { type Answer, approvals } from "../outflows/schema";
import { keyChainInForce } from "../keys/service";
import { jsonText } from "../json";
import { type AgentId } from "../ids";

const isDue = (row: ApprovalRow) => row.status === "PENDING" && row.expiresAt <= clock.nowMs();

/** Why a due approval expires: its 24 h passed, or the restricted key that asked for it ended first (keys/commitments.ts). */
function* expiry(row: ApprovalRow): Op<string> {
  if (row.keyId !== null && !(yield* keyChainInForce(row.keyId))) return "KEY_INACTIVE: the restricted key that asked for it was revoked or expired";
  return "APPROVAL_EXPIRED: not approved within 24 h";
}

/** The approval of `ownerAgentId`'s agent, locked, with its expiry applied if it is due (closed EXPIRED). */
function* settled(ownerAgentId: AgentId, id: string): Op<ApprovalRow> {
  const row = yield* find(approvals, id, true);
  if (!row || row.agentId !== ownerAgentId) throw notFound("approval");
  if (!isDue(row)) return row;
  yield* closeApproval(row, "EXPIRED", yield* expiry(row));
  return (yield* find(approvals, id))!;
}

/**
 * An owner's decision on a held outflow: due expiry applied, then `action` on the PENDING row. A
 * decision that is refused (already decided or expired, other terms) is thrown only after the write
 * committed, so an expiry it applied is kept. The row lock makes decisions exactly-once: of concurrent
 * ones, the first to lock the row acts, and the others find it decided.
 */
async function decide<T>(ownerAgentId: AgentId, id: string, termsHash: string | undefined, action: (row: ApprovalRow) => Op<T | ApiError>): Promise<T> {
  const outcome = await write(function* (): Op<T | ApiError> {
    const row = yield* settled(ownerAgentId, id);
    if (row.status !== "PENDING") return invalidState(`the approval is ${row.status}`);
    if (termsHash !== undefined && termsHash !== row.termsHash) return invalidState("the terms you decided on are not the ones held (termsHash differs)");
    return yield* action(row);
  });
  if (outcome instanceof ApiError) throw outcome;
  return outcome;
}

export async function declineOutflow(ownerAgentId: AgentId, id: string, termsHash: string | undefined): Promise<void> {
  await decide(ownerAgentId, id, termsHash, (row) => closeApproval(row, "DECLINED", "DECLINED_BY_OWNER: your owner declined it"));
}

/** Runs the held request again with the owner's grant; what it answered is kept with the approval. */
export type Executor = (row: ApprovalRow, grant: Grant) => Promise<Answer>;

/**
 * The owner approves: the request runs again as the agent, with the grant, and moves the money in
 * the same transaction that marks the approval APPROVED. If it cannot (the counterparty blocked the
 * agent meanwhile, a bet was taken, the policy was tightened…), the approval is FAILED with that
 * reason and the hold goes back — unless the agent is frozen: then nothing runs and it stays PENDING
 * (403 AGENT_FROZEN). Of concurrent approves (and declines), only the one whose decision
 * committed first answers; the others are refused (409) as any later one would be.
 */
export async function approveOutflow(ownerAgentId: AgentId, id: string, termsHash: string | undefined, execute: Executor): Promise<void> {
  // A frozen agent moves nothing, approved or not: the approve is refused (403 AGENT_FROZEN) and the
  // approval stays PENDING, to be approved once unfrozen, declined, or left to expire.
  const row = await decide(ownerAgentId, id, termsHash, function* (row) {
    return frozenError((yield* findAgent(row.agentId))!) ?? row;
  });
  const grant: Grant = { approvalId: row.id, taken: false };
  let answered: { result: Answer } | null = null;
  let failure = "INVALID_STATE: the request ran again but moved no money (the resource no longer asks for payment?)";
  try {
    answered = { result: await execute(row, grant) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // Frozen since the check above: refused the same way, still PENDING (its op rolled back whole).
    if (error.code === "AGENT_FROZEN") throw error;
    failure = `${error.code}: ${error.message}`;
  }
  const keep = ({ result }: { result: Answer | null }) => update(approvals, row.id, { result: jsonText(result) });
  if (grant.taken) {
    if (answered) await write(() => keep(answered));
    return;
  }
  // The request's op rolled back as a whole (or moved nothing). Unless another decision came first
  // (then this approve is refused, like any repeat), the approval is FAILED in an op of its own.
  await decide(ownerAgentId, id, undefined, function* (current) {
    yield* closeApproval(current, "FAILED", failure);
    if (answered) yield* keep(answered);
  });
}

/** A write op: the approval expires if it is still PENDING past its time; true if it did. */
function* expireRowIfDue(id: string): Op<boolean> {
  const row = yield* find(approvals, id, true);
  if (!row || !isDue(row)) return false;
  yield* closeApproval(row, "EXPIRED", yield* expiry(row));
  return true;
}

const dueExpiries: DueWork = { name: "approvals.expire", table: "approvals", where: "status = 'PENDING'", dueColumn: "expires_at", apply: expireRowIfDue };

/** Applies the approval's expiry if it is due, so no read shows it PENDING past its time (a write only then). */
export const expireApprovalIfDue = (id: string) => applyIfDue(dueExpiries, id);

/** The job (every PENDING approval past its expiry), or one agent's before they are listed. */
export const expireDueApprovals = (agentId?: AgentId) => applyDue(dueExpiries, agentId === undefined ? undefined : { where: "agent_id = ?", params: [agentId] });

/** A write op: the owner is reminded of a PENDING approval whose reminder time came (once: the time is cleared); true if it was. */
function* remindIfDue(id: string): Op<boolean> {
  const row = yield* find(approvals, id, true);
  if (!row || row.status !== "PENDING" || row.remindAt === null || row.remindAt > clock.nowMs() || row.expiresAt <= clock.nowMs()) return false;
  yield* update(approvals, row.id, { remindAt: null });
  yield* tellOwnerOf(row.id, "approval.reminder");
  return true;
}

const dueReminders: DueWork = { name: "approvals.remind", table: "approvals", where: "status = 'PENDING'", dueColumn: "remind_at", apply: remindIfDue };

/** The job: owners reminded of what expires within the hour. */
export const remindDueApprovals = () => applyDue(dueReminders);
