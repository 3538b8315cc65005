import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, json, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

export type ContractCondition = {
  id: string;
  type: string;
  description: string;
  params: Record<string, unknown>;
  /** When the creator confirmed it (ms), null while open. */
  fulfilledAt: number | null;
};

/**
 * A conditional contract: the creator's escrow goes to the counterparty once the creator has confirmed
 * every condition. PENDING_SIGNATURE → ACTIVE → FULFILLED | BREACHED; PENDING_SIGNATURE → EXPIRED | CANCELLED.
 */
export const contracts = sqliteTable(
  "contracts",
  {
    id: text("id").primaryKey(),
    creatorId: text("creator_id").notNull().references(() => agents.id),
    counterpartyId: text("counterparty_id").notNull().references(() => agents.id),
    title: text("title").notNull(),
    description: text("description").notNull(),
    escrowAmount: money("escrow_amount").notNull(),
    currency: text("currency").notNull(),
    conditions: json<ContractCondition[]>()("conditions").notNull(),
    deadlineDays: int("deadline_days").notNull(),
    deadlineAt: timestampMs("deadline_at").notNull(),
    status: text("status").notNull(),
    signedAt: timestampMs("signed_at"),
    closedAt: timestampMs("closed_at"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    index("contracts_status_idx").on(table.status, table.deadlineAt),
    index("contracts_creator_id_idx").on(table.creatorId, table.createdAt),
    index("contracts_counterparty_id_idx").on(table.counterpartyId, table.createdAt),
  ],
);
