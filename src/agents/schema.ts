import { index, integer, primaryKey, table, text } from "../db/tables";

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
  rateLimit: integer(),
  /** The owner's spending policy (owners/policy.ts), JSON; null: none. */
  policy: text(),
  createdAt: integer().notNull(),
});

/** Every change of an agent's reputation score, newest read first. */
export const scoreEvents = table(
  "score_events",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    reason: text().notNull(),
    change: integer().notNull(),
    referenceType: text(),
    referenceId: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index("score_events_agent_id_idx").on(t.agentId, t.createdAt)],
);

/** blockerId refuses every action of blockedId that names it. */
export const blocks = table(
  "blocks",
  {
    blockerId: text().notNull().references(() => agents.columns.id),
    blockedId: text().notNull().references(() => agents.columns.id),
    reason: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index("blocks_pair_idx").on(t.blockerId, t.blockedId)],
);
