import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, json, timestampMs } from "../db/columns";

export const agents = sqliteTable("agents", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  ownerName: text("owner_name").notNull(),
  ownerEmail: text("owner_email").notNull(),
  description: text("description"),
  capabilities: json<string[]>()("capabilities").notNull(),
  webhookUrl: text("webhook_url"),
  webhookSecret: text("webhook_secret"),
  apiKeyHash: text("api_key_hash").notNull().unique(),
  ownerKeyHash: text("owner_key_hash").notNull().unique(),
  score: int("score").notNull().default(0),
  rateLimit: int("rate_limit"),
  createdAt: timestampMs("created_at").notNull(),
});

/** Every change of an agent's reputation score, newest read first. */
export const scoreEvents = sqliteTable(
  "score_events",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    reason: text("reason").notNull(),
    change: int("change").notNull(),
    referenceType: text("reference_type"),
    referenceId: text("reference_id"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("score_events_agent_id_idx").on(table.agentId, table.createdAt)],
);

/** blockerId refuses every action of blockedId that names it. */
export const blocks = sqliteTable(
  "blocks",
  {
    blockerId: text("blocker_id").notNull().references(() => agents.id),
    blockedId: text("blocked_id").notNull().references(() => agents.id),
    reason: text("reason"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("blocks_pair_idx").on(table.blockerId, table.blockedId)],
);
