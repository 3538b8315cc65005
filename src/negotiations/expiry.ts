// A negotiation's one timed transition: OPEN past expiresAt becomes EXPIRED. It runs as due work
// (src/due.ts) in the job, and before a read or list of the caller's negotiations or an action (the
// route's due hook), each in an op of its own; an action's op also applies it to the row it locks.
import { clock } from "../clock";
import { find, type Op } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { change, notifyParties, type Negotiation } from "./negotiation";
import { negotiations } from "./schema";
import { type AgentId } from "../ids";

/** A write op: OPEN past its expiry becomes EXPIRED (returns the row as it now is). */
export function* expireIfDue(row: Negotiation): Op<Negotiation> {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  const expired = yield* change(row, { status: "EXPIRED" });
  yield* notifyParties(expired, "negotiation.expired", `Negotiation "${row.subject}" expired`);
  return expired;
}

const dueExpiries: DueWork = {
  name: "negotiations.expire",
  table: negotiations.name,
  where: "status = 'OPEN'",
  dueColumn: "expires_at",
  apply: function* (id) {
    const row = yield* find(negotiations, id, true);
    return row !== null && (yield* expireIfDue(row)) !== row;
  },
};

/** What makes a negotiation the agent's: it is one of the two parties. */
export const partyScope = (agentId: AgentId) => ({ where: "(initiator_id = ? OR counterparty_id = ?)", params: [agentId, agentId] });

/** The job: every OPEN negotiation past its expiry becomes EXPIRED. */
export const expireDueNegotiations = () => applyDue(dueExpiries);

/** Before a list of the agent's negotiations: the due ones among them expire. */
export const expireDueOf = (agentId: AgentId) => applyDue(dueExpiries, partyScope(agentId));

/**
 * Before a read of or an action on one negotiation: its expiry, if due, committed in an op of its own (a
 * write only then), so a 409 on an expired negotiation leaves it stored as EXPIRED.
 */
export const expireIfDueById = (id: string) => applyIfDue(dueExpiries, id);
