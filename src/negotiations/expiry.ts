// A negotiation's one timed transition: OPEN past expiresAt becomes EXPIRED. It runs as due work
// (src/due.ts) in the job, before a read or list of the caller's negotiations, and before an
// action, each in an op of its own; an action's op also applies it to the row it locks.
import { clock } from "../clock";
import { find, write, type Op } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { change, notifyParties, type Negotiation } from "./negotiation";
import { negotiations } from "./schema";

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
  apply: (id) =>
    write(function* () {
      const row = yield* find(negotiations, id, true);
      return row !== null && (yield* expireIfDue(row)) !== row;
    }),
};

/** What makes a negotiation the agent's: it is one of the two parties. */
export const partyScope = (agentId: string) => ({ where: "(initiator_id = ? OR counterparty_id = ?)", params: [agentId, agentId] });

/** The job: every OPEN negotiation past its expiry becomes EXPIRED. */
export const expireDueNegotiations = () => applyDue(dueExpiries);

/** Before a list of the agent's negotiations: the due ones among them expire. */
export const expireDueOf = (agentId: string) => applyDue(dueExpiries, partyScope(agentId));

/** Before a read of one negotiation: its expiry, if due (a write only then). */
export const expireIfDueById = (id: string) => applyIfDue(dueExpiries, id);

/**
 * An action on one negotiation: its due expiry is committed first, in an op of its own, so a 409 on
 * an expired negotiation leaves it stored as EXPIRED.
 */
export async function actOn<T>(id: string, op: () => Op<T>): Promise<T> {
  await expireIfDueById(id);
  return write(op);
}
