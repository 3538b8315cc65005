import { index, integer, json, primaryKey, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import type { OutflowKind } from "./kinds";
import { type AgentId } from "../ids";

/** What an approved request answered (its view: the payment, the bet…), kept on the approval. */
export type Answer = Record<string, unknown>;

/**
 * An outflow held for the owner's decision (outflows/approvals.ts). `held` sits in the agent's held
 * account meanwhile. status: PENDING → APPROVED | DECLINED | EXPIRED | FAILED.
 */
export const approvals = table(
  "approvals",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    kind: text<OutflowKind>().notNull(),
    status: text().notNull(),
    amount: integer().notNull(),
    /** What waits in the agent's held account: the amount, or for a borrow its collateral (may be 0). */
    held: integer().notNull().default(0),
    currency: text<Currency>().notNull(),
    counterpartyId: text<AgentId>(),
    /** The request the agent made, as JSON: what runs again once approved. */
    terms: json<Record<string, unknown>>().notNull(),
    termsHash: text().notNull(),
    /** The usage bucket its amount was counted in (given back if it never goes out). */
    usageBucket: integer().notNull(),
    reason: text(),
    /** What the approved outflow answered, as JSON. */
    result: json<Answer | null>(),
    createdAt: integer().notNull(),
    /** The restricted key that asked; null: the agent key. Its chain must still be in force when it runs. */
    keyId: text(),
    /** Never later than the expiry of the key that asked, and brought to the moment that key is revoked. */
    expiresAt: integer().notNull(),
    /** When the owner is reminded (an hour before it expires); null once reminded, or when it lasts less than that. */
    remindAt: integer(),
    decidedAt: integer(),
  },
  (t) => [index("approvals_agent_idx").on(t.agentId, t.status, t.createdAt), index("approvals_due_idx").on(t.status, t.expiresAt), index("approvals_key_idx").on(t.keyId), index("approvals_remind_idx").on(t.remindAt)],
);

/**
 * What an agent's outflows add up to, per currency, in 10-minute buckets: the 24 h cap's window. Keyed
 * by bucket first, so the rows every outflow writes (the current bucket's) sit together on a few pages
 * instead of one page per agent; a cap's check looks its 145 buckets up one by one.
 */
export const outflowUsage = table(
  "outflow_usage",
  {
    bucket: integer().notNull(),
    agentId: text().notNull().references(() => agents.columns.id),
    currency: text().notNull(),
    amount: integer().notNull(),
  },
  (t) => [primaryKey(t.bucket, t.agentId, t.currency)],
);
