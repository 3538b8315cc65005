// The owner's side of a negotiation accepted above the threshold (AWAITING_HUMAN_APPROVAL): approve
// exactly the offer that was accepted (ACCEPTED) or decline it (REJECTED), and the rows the owner's
// approval list (src/owners/service.ts) shows beside held outflows.
import { clock } from "../clock";
import { find, select, type Op } from "../db";
import { invalidState } from "../errors";
import { change, negotiationView, notifyParties, offerOf, partyOnly, type Negotiation } from "./negotiation";
import { offerHash } from "./offers";
import { negotiations } from "./schema";
import { type AgentId } from "../ids";

/** The negotiation, locked, if the owner's agent is a party to it and it waits for an owner. */
function* awaitingOwner(ownerAgentId: AgentId, id: string): Op<Negotiation> {
  const row = partyOnly(yield* find(negotiations, id, true), ownerAgentId);
  if (row.status !== "AWAITING_HUMAN_APPROVAL") throw invalidState(`the negotiation is ${row.status}, not AWAITING_HUMAN_APPROVAL`);
  return row;
}

/** The owner of either party approves exactly the offer that was accepted. */
export function* humanApprove(ownerAgentId: AgentId, id: string) {
  const row = yield* awaitingOwner(ownerAgentId, id);
  if (row.acceptedOfferHash !== offerHash(offerOf(row))) throw invalidState("the offer changed since it was accepted");
  const now = clock.nowMs();
  const next = yield* change(row, { status: "ACCEPTED", approvedBy: ownerAgentId, approvedAt: now }, now);
  yield* notifyParties(next, "negotiation.approved", `"${row.subject}" was approved by an owner`);
  return negotiationView(next);
}

/** The owner of either party declines the accepted offer: the negotiation is REJECTED. */
export function* humanDecline(ownerAgentId: AgentId, id: string) {
  const row = yield* awaitingOwner(ownerAgentId, id);
  const next = yield* change(row, { status: "REJECTED" });
  yield* notifyParties(next, "negotiation.rejected", `"${row.subject}" was declined by an owner`);
  return negotiationView(next);
}

/**
 * The negotiations of `agentId` that are an owner's business, as rows of the owner's approval list
 * (owners/service.ts pages them together with held outflows): waiting for an owner (PENDING), or
 * approved by one (APPROVED). `status` narrows it.
 */
export function ownerQueueSelect(agentId: AgentId, status?: string): { sql: string; params: unknown[] } {
  const which = status === "PENDING" ? "status = 'AWAITING_HUMAN_APPROVAL'" : status === "APPROVED" ? "approved_by IS NOT NULL" : status ? "1 = 0" : "(status = 'AWAITING_HUMAN_APPROVAL' OR approved_by IS NOT NULL)";
  return {
    sql: `SELECT id, CASE WHEN status = 'AWAITING_HUMAN_APPROVAL' THEN 1 ELSE 0 END AS pending, accepted_at AS at
          FROM negotiations WHERE (initiator_id = ? OR counterparty_id = ?) AND ${which}`,
    params: [agentId, agentId],
  };
}

export function* negotiationsByIds(ids: string[]): Op<Negotiation[]> {
  if (ids.length === 0) return [];
  return yield* select(negotiations, `id IN (${ids.map(() => "?").join(", ")})`, ...ids);
}
