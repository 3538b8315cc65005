import { index, integer, json, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { NegotiationStatus } from "./model";
import { type AgentId } from "../ids";

/** An offer: a free-form object, as its author sent it (src/negotiations/offers.ts checks it). */
export type Offer = Record<string, unknown>;
export type HistoryItem = { by: string; offer: Offer; at: string };

/**
 * pairKey is the unordered pair "<smaller id>:<larger id>", for the per-pair limits. offerBy made the
 * current offer; the other party has the turn. acceptedOfferHash binds a human approval to exactly
 * the offer that was accepted.
 */
export const negotiations = table(
  "negotiations",
  {
    id: text().primaryKey(),
    initiatorId: text().notNull().references(() => agents.columns.id),
    counterpartyId: text().notNull().references(() => agents.columns.id),
    pairKey: text().notNull(),
    subject: text().notNull(),
    status: text<NegotiationStatus>().notNull(),
    /** JSON: Offer. */
    currentOffer: json<Offer>().notNull(),
    offerBy: text<AgentId>().notNull(),
    /** JSON: HistoryItem[]. */
    history: json<HistoryItem[]>().notNull(),
    relatedEntityType: text(),
    relatedEntityId: text(),
    expiresAt: integer().notNull(),
    acceptedOfferHash: text(),
    acceptedBy: text(),
    acceptedAt: integer(),
    approvedBy: text(),
    approvedAt: integer(),
    lastCounterAt: integer(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("negotiations_pair_key_idx").on(t.pairKey, t.status),
    index("negotiations_initiator_id_idx").on(t.initiatorId, t.createdAt),
    index("negotiations_counterparty_id_idx").on(t.counterpartyId, t.createdAt),
    index("negotiations_status_expires_idx").on(t.status, t.expiresAt),
  ],
);
