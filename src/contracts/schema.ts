import { index, integer, json, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";

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
export const contracts = table(
  "contracts",
  {
    id: text().primaryKey(),
    creatorId: text().notNull().references(() => agents.columns.id),
    counterpartyId: text().notNull().references(() => agents.columns.id),
    title: text().notNull(),
    description: text().notNull(),
    escrowAmount: integer().notNull(),
    currency: text<Currency>().notNull(),
    /** JSON: ContractCondition[]. */
    conditions: json<ContractCondition[]>().notNull(),
    deadlineDays: integer().notNull(),
    deadlineAt: integer().notNull(),
    status: text().notNull(),
    signedAt: integer(),
    closedAt: integer(),
    /** The creator's restricted key that made it (the escrow was counted against its chain); null: the agent key. */
    keyId: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("contracts_status_idx").on(t.status, t.deadlineAt),
    index("contracts_creator_id_idx").on(t.creatorId, t.createdAt),
    index("contracts_counterparty_id_idx").on(t.counterpartyId, t.createdAt),
  ],
);
