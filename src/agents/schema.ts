import { integer, table, text, uniqueIndex } from "../db/tables";

export const agents = table("agents", {
  id: text().primaryKey(),
  name: text().notNull(),
  ownerName: text().notNull(),
  ownerEmail: text().notNull(),
  description: text(),
  capabilities: text().notNull(),
  webhookUrl: text(),
  webhookSecret: text(),
  apiKeyHash: text().notNull().unique(),
  ownerKeyHash: text().notNull().unique(),
  score: integer().notNull().default(0),
  /** The latest score changes, newest last, as JSON (agents/score.ts): what GET /agents/{id}/reputation shows. */
  scoreEvents: text().notNull().default("'[]'"),
  rateLimit: integer(),
  /** The owner's spending policy (outflows/policy.ts), JSON; null: none. */
  policy: text(),
  createdAt: integer().notNull(),
});

/** blockerId refuses every action of blockedId that names it. */
export const blocks = table(
  "blocks",
  {
    blockerId: text().notNull().references(() => agents.columns.id),
    blockedId: text().notNull().references(() => agents.columns.id),
    reason: text(),
    createdAt: integer().notNull(),
  },
  // One row per pair: two blocks at once insert one (ON CONFLICT DO NOTHING).
  (t) => [uniqueIndex("blocks_pair_idx").on(t.blockerId, t.blockedId)],
);
