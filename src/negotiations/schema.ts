import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

export type HistoryItem = { by: string; offer: Record<string, unknown>; at: string };

/**
 * pairKey is the unordered pair "<smaller id>:<larger id>", for the per-pair limits. offerBy made the
 * current offer; the other party has the turn. acceptedOfferHash binds a human approval to exactly
 * the offer that was accepted.
 */
export const negotiations = sqliteTable(
  "negotiations",
  {
    id: text("id").primaryKey(),
    initiatorId: text("initiator_id").notNull().references(() => agents.id),
    counterpartyId: text("counterparty_id").notNull().references(() => agents.id),
    pairKey: text("pair_key").notNull(),
    subject: text("subject").notNull(),
    status: text("status").notNull(),
    currentOffer: json<Record<string, unknown>>()("current_offer").notNull(),
    offerBy: text("offer_by").notNull(),
    history: json<HistoryItem[]>()("history").notNull(),
    relatedEntityType: text("related_entity_type"),
    relatedEntityId: text("related_entity_id"),
    expiresAt: timestampMs("expires_at").notNull(),
    acceptedOfferHash: text("accepted_offer_hash"),
    acceptedBy: text("accepted_by"),
    acceptedAt: timestampMs("accepted_at"),
    approvedBy: text("approved_by"),
    approvedAt: timestampMs("approved_at"),
    lastCounterAt: timestampMs("last_counter_at"),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [
    index("negotiations_pair_key_idx").on(table.pairKey, table.status),
    index("negotiations_initiator_id_idx").on(table.initiatorId, table.createdAt),
    index("negotiations_counterparty_id_idx").on(table.counterpartyId, table.createdAt),
    index("negotiations_status_expires_idx").on(table.status, table.expiresAt),
  ],
);
