// A negotiation's row as its table gives it, and what every step does with it: the offer and history
// read from their JSON columns, whose turn it is, the one row→answer view, a change (updatedAt with
// it) and the notices to the parties.
import { clock, iso, isoOrNull } from "../clock";
import { update, type Changes, type Op, type Row } from "../db";
import { notFound } from "../errors";
import { notifyFinancial } from "../webhooks/outbox";
import { negotiations } from "./schema";
import { readJson } from "../json";
import { type AgentId } from "../ids";

export type Negotiation = Row<typeof negotiations>;

/** The offer on the table, stored as JSON. */
export const offerOf = (row: Negotiation) => readJson(row.currentOffer);
/** Every counter-offer, oldest first, stored as JSON. */
export const historyOf = (row: Negotiation) => readJson(row.history);

export const isParty = (row: Negotiation, agentId: AgentId) => row.initiatorId === agentId || row.counterpartyId === agentId;
export const otherParty = (row: Negotiation, agentId: AgentId) => (row.initiatorId === agentId ? row.counterpartyId : row.initiatorId);

/** The row if `agentId` is one of its parties; anyone else gets 404 (existence is not revealed). */
export function partyOnly(row: Negotiation | null, agentId: AgentId): Negotiation {
  if (!row || !isParty(row, agentId)) throw notFound("negotiation");
  return row;
}

export function negotiationView(row: Negotiation) {
  return {
    id: row.id,
    initiatorId: row.initiatorId,
    counterpartyId: row.counterpartyId,
    subject: row.subject,
    status: row.status,
    currentOffer: offerOf(row),
    offerBy: row.offerBy,
    turn: row.status === "OPEN" ? otherParty(row, row.offerBy) : null,
    history: historyOf(row),
    relatedEntityType: row.relatedEntityType,
    relatedEntityId: row.relatedEntityId,
    expiresAt: iso(row.expiresAt),
    acceptedBy: row.acceptedBy,
    acceptedOfferHash: row.acceptedOfferHash,
    acceptedAt: isoOrNull(row.acceptedAt),
    approvedBy: row.approvedBy,
    approvedAt: isoOrNull(row.approvedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Writes `changes` to the negotiation, updatedAt with them; answers the row after it. */
export const change = (row: Negotiation, changes: Changes<typeof negotiations>, now = clock.nowMs()) => update(negotiations, row.id, { ...changes, updatedAt: now });

export function* notifyParties(row: Negotiation, kind: string, summary: string, parties = [row.initiatorId, row.counterpartyId]): Op<void> {
  const data = { negotiationId: row.id, status: row.status, subject: row.subject, offer: offerOf(row) };
  for (const agentId of parties) yield* notifyFinancial(agentId, kind, data, summary);
}
