import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * A bet between its creator (who bets that `condition` is met) and one acceptor; each holds `amount`
 * in escrow. OPEN → MATCHED → SETTLED | VOID, MATCHED → DISPUTED → SETTLED | VOID, OPEN → EXPIRED.
 */
export const bets = sqliteTable(
  "bets",
  {
    id: text("id").primaryKey(),
    creatorId: text("creator_id").notNull().references(() => agents.id),
    acceptorId: text("acceptor_id").references(() => agents.id),
    description: text("description").notNull(),
    condition: text("condition").notNull(),
    /** Each party's stake; the pot is twice this once matched. */
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    oracleType: text("oracle_type").notNull(),
    oracle: json<Record<string, unknown>>()("oracle"),
    status: text("status").notNull(),
    creatorOutcome: text("creator_outcome"),
    acceptorOutcome: text("acceptor_outcome"),
    outcome: text("outcome"),
    winnerId: text("winner_id").references(() => agents.id),
    /** PARTIES (both reported the same outcome), ORACLE (an API or ORACLE_NET bet settled itself) or OPERATOR. */
    resolvedBy: text("resolved_by"),
    expiresAt: timestampMs("expires_at").notNull(),
    matchedAt: timestampMs("matched_at"),
    closedAt: timestampMs("closed_at"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    index("bets_status_idx").on(table.status, table.expiresAt),
    index("bets_creator_id_idx").on(table.creatorId, table.createdAt),
    index("bets_acceptor_id_idx").on(table.acceptorId, table.createdAt),
  ],
);
