import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * An account holds one currency. Agent accounts are `available` or `held` (escrow) and may never go
 * negative; system accounts (`external` deposits, `withdrawals` in flight) mirror the outside world.
 */
export const accounts = sqliteTable(
  "accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    agentId: text("agent_id").references(() => agents.id),
    kind: text("kind").notNull(),
    currency: text("currency").notNull(),
    balance: money("balance").notNull().default(sql`0`),
    /** How many postings this account has: an agent's history total without counting rows. */
    postingCount: int("posting_count").notNull().default(0),
  },
  (table) => [uniqueIndex("accounts_owner_kind_currency_idx").on(table.agentId, table.kind, table.currency)],
);

/** One balanced movement of money: its postings sum to zero per currency. */
export const journalEntries = sqliteTable(
  "journal_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    type: text("type").notNull(),
    referenceType: text("reference_type").notNull(),
    referenceId: text("reference_id").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("journal_entries_reference_idx").on(table.referenceType, table.referenceId)],
);

/**
 * A posting's historyType and counterpartyId make it an entry of its account owner's history;
 * historyAgentId is set on postings to an agent's available account, so the history is one index
 * range (newest first) however many rows the ledger holds.
 */
export const postings = sqliteTable(
  "postings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    entryId: integer("entry_id").notNull().references(() => journalEntries.id),
    accountId: integer("account_id").notNull().references(() => accounts.id),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    historyType: text("history_type").notNull(),
    counterpartyId: text("counterparty_id"),
    historyAgentId: text("history_agent_id"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    index("postings_history_idx").on(table.historyAgentId, table.id).where(sql`${table.historyAgentId} IS NOT NULL`),
    index("postings_entry_id_idx").on(table.entryId),
  ],
);
