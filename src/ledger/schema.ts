import { index, integer, serial, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";

/**
 * An account holds one currency. Agent accounts are `available` or `held` (escrow) and may never go
 * negative; system accounts (`external` deposits, `withdrawals` in flight) mirror the outside world.
 */
export const accounts = table(
  "accounts",
  {
    id: serial(),
    agentId: text().references(() => agents.columns.id),
    kind: text().notNull(),
    currency: text().notNull(),
    balance: integer().notNull().default("0"),
    /** How many postings this account has: an agent's history total without counting rows. */
    postingCount: integer().notNull().default(0),
  },
  (t) => [
    uniqueIndex("accounts_owner_kind_currency_idx").on(t.agentId, t.kind, t.currency),
    // NULLs are distinct in the index above: this one makes each system account (kind, currency) one row.
    uniqueIndex("accounts_system_kind_currency_idx").on(t.kind, t.currency).where(`"accounts"."agent_id" IS NULL`),
  ],
);

/** One balanced movement of money: its postings sum to zero per currency. */
export const journalEntries = table(
  "journal_entries",
  {
    id: serial(),
    type: text().notNull(),
    referenceType: text().notNull(),
    referenceId: text().notNull(),
    createdAt: integer().notNull(),
    /** The restricted key whose request made this movement; null: the agent key, the owner or the service. */
    keyId: text(),
  },
);

/**
 * A posting's historyType and counterpartyId make it an entry of its account owner's history;
 * historyAgentId is set on postings to an agent's available account, so the history is one index
 * range (newest first) however many rows the ledger holds.
 */
export const postings = table(
  "postings",
  {
    id: serial(),
    entryId: integer().notNull().references(() => journalEntries.columns.id),
    accountId: integer().notNull().references(() => accounts.columns.id),
    amount: integer().notNull(),
    currency: text().notNull(),
    historyType: text().notNull(),
    counterpartyId: text(),
    historyAgentId: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("postings_history_idx").on(t.historyAgentId, t.id).where(`"postings"."history_agent_id" IS NOT NULL`),
    index("postings_entry_id_idx").on(t.entryId),
  ],
);

/**
 * A hold (TigerBeetle's pending transfer): money in an agent's held account waiting for one outcome.
 * PENDING → POSTED (paid to another agent) | VOIDED (returned to the holder) | EXPIRED (returned at
 * its feature's deadline). Written only by ledger/escrow.ts; the ledger check verifies that each
 * agent's held balance per currency is the sum of its PENDING holds. A feature finds its hold by its
 * own reference and the holder (unique), so no feature row carries a copy of the amount to release.
 */
export const holds = table(
  "holds",
  {
    id: serial(),
    agentId: text().notNull().references(() => agents.columns.id),
    amount: integer().notNull(),
    currency: text().notNull(),
    /** LOAN_OFFER, LOAN_COLLATERAL, BET_STAKE, CONTRACT_ESCROW, APPROVAL; LEGACY for held money the migration could not attribute. */
    purpose: text().notNull(),
    referenceType: text().notNull(),
    referenceId: text().notNull(),
    state: text().notNull(),
    createdAt: integer().notNull(),
    closedAt: integer(),
  },
  (t) => [
    uniqueIndex("holds_reference_agent_idx").on(t.referenceType, t.referenceId, t.agentId),
    index("holds_state_agent_idx").on(t.state, t.agentId, t.currency),
  ],
);
