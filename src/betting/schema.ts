import { index, integer, json, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import type { OracleType } from "./oracles";

/**
 * A bet between its creator (who bets that `condition` is met) and one acceptor; each holds `amount`
 * in escrow. OPEN → MATCHED → SETTLED | VOID, MATCHED → DISPUTED → SETTLED | VOID, OPEN → EXPIRED,
 * OPEN → CANCELLED (withdrawn untaken).
 */
export const bets = table(
  "bets",
  {
    id: text().primaryKey(),
    creatorId: text().notNull().references(() => agents.columns.id),
    acceptorId: text().references(() => agents.columns.id),
    description: text().notNull(),
    condition: text().notNull(),
    /** Each party's stake; the pot is twice this once matched. */
    amount: integer().notNull(),
    currency: text<Currency>().notNull(),
    oracleType: text<OracleType>().notNull(),
    oracle: json<Record<string, unknown>>(),
    status: text().notNull(),
    creatorOutcome: text(),
    acceptorOutcome: text(),
    outcome: text(),
    winnerId: text().references(() => agents.columns.id),
    /** PARTIES (both reported the same outcome), ORACLE (an API or ORACLE_NET bet settled itself) or OPERATOR. */
    resolvedBy: text(),
    /** Never later than the expiry of the creator's key that made it, and brought to the moment that key is revoked. */
    expiresAt: integer().notNull(),
    /** The restricted keys that staked each side (null: the agent key): a stake was counted against its own chain. */
    creatorKeyId: text(),
    acceptorKeyId: text(),
    /** An API or ORACLE_NET bet's oracle.resolveAt (ms), for the oracle job's index; null for MANUAL. */
    resolveAt: integer(),
    matchedAt: integer(),
    closedAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("bets_status_idx").on(t.status, t.expiresAt),
    index("bets_status_resolve_idx").on(t.status, t.resolveAt),
    index("bets_creator_id_idx").on(t.creatorId, t.createdAt),
    index("bets_acceptor_id_idx").on(t.acceptorId, t.createdAt),
    index("bets_creator_key_idx").on(t.creatorKeyId),
  ],
);
