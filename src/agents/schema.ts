import { index, integer, json, table, text, uniqueIndex } from "../db/tables";
import type { Currency } from "../money";
import { type AgentId } from "../ids";

/** One change of an agent's score, as its row keeps the latest ones (agents/service.ts). */
export type ScoreEvent = { reason: string; change: number; referenceType: string | null; referenceId: string | null; createdAt: number };
type StoredLimits = Partial<Record<Currency, string>>;
/** The owner's spending policy as the row stores it: minor units as strings (outflows/policy.ts reads it). */
export type StoredPolicy = { perTransaction: StoredLimits; daily: StoredLimits; allowlist: string[] | null; approvalAbove: StoredLimits };

export const agents = table("agents", {
  id: text<AgentId>().primaryKey(),
  name: text().notNull(),
  ownerName: text().notNull(),
  ownerEmail: text().notNull(),
  description: text(),
  capabilities: json<string[]>().notNull(),
  webhookUrl: text(),
  webhookSecret: text(),
  apiKeyHash: text().notNull().unique(),
  ownerKeyHash: text().notNull().unique(),
  score: integer().notNull().default(0),
  /** The latest score changes, newest last, as JSON (agents/score.ts): what GET /agents/{id}/reputation shows. */
  scoreEvents: json<ScoreEvent[]>().notNull().default("'[]'"),
  rateLimit: integer(),
  /** The owner's spending policy (outflows/policy.ts), JSON; null: none. */
  policy: json<StoredPolicy>(),
  /**
   * The brakes (agents/freeze.ts): when the owner froze the agent, when the operator did; null: that
   * brake is off. Either one on refuses every outflow the agent starts (403 AGENT_FROZEN). Two columns,
   * not one: each party lifts only its own brake.
   */
  ownerFrozenAt: integer(),
  operatorFrozenAt: integer(),
  createdAt: integer().notNull(),
});

/** Every freeze and unfreeze of an agent, by whom and why (the record; the brakes in force are on the agent's row). */
export const agentFreezes = table(
  "agent_freezes",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    brake: text<"owner" | "operator">().notNull(),
    action: text<"FREEZE" | "UNFREEZE">().notNull(),
    reason: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index("agent_freezes_agent_idx").on(t.agentId, t.createdAt)],
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
  // One row per pair: two blocks at once insert one (ON CONFLICT DO NOTHING).
  (t) => [uniqueIndex("blocks_pair_idx").on(t.blockerId, t.blockedId)],
);
