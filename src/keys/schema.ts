import { index, integer, json, primaryKey, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import type { Scope } from "./scopes";

/** A key's budgets as its row stores them: per currency, minor units as strings. */
export type StoredBudgets = Partial<Record<Currency, { perTransaction?: string; total?: string }>>;

export type KeyPurpose = "key" | "oauth_grant" | "oauth_token";

/**
 * A restricted key (pp_r_…) of an agent: what it may do (scopes), spend (budgets) and pay whom
 * (allowlist), until it expires or is revoked. Stored hashed; keys/service.ts.
 */
export const agentKeys = table(
  "agent_keys",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    name: text().notNull(),
    keyHash: text().notNull().unique(),
    /** JSON array of scopes (keys/scopes.ts). */
    scopes: json<Scope[]>().notNull(),
    /** JSON { currency: { perTransaction?, total? } } in minor units as strings; {}: no budget. */
    budgets: json<StoredBudgets>().notNull(),
    /** JSON array of agent ids; null: any counterparty. */
    allowlist: json<string[]>(),
    /** The restricted key that made it; null: the agent key or the owner key. */
    parentKeyId: text(),
    /**
     * For a key made by the agent key or the owner key: the SHA-256 of that key. Rotating it revokes this
     * key (and every key made from it). Null on keys made before it was recorded: either rotation ends them.
     */
    madeWith: text(),
    /** What it is for: a key made at /agents/me/keys, an MCP host's OAuth grant, or an access token minted from a grant. */
    purpose: text<KeyPurpose>().notNull().default("'key'"),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
    revokedAt: integer(),
    /** When a request last came with it, to the minute (keys/service.ts touchKey): not a write per request. */
    lastUsedAt: integer(),
    /**
     * The one resource it works at (RFC 8707), or null: any route. An OAuth grant's key and every key
     * made from it carry the resource the grant was issued for (`<base>/mcp`).
     */
    resource: text(),
  },
  (t) => [index("agent_keys_agent_idx").on(t.agentId, t.createdAt), index("agent_keys_parent_idx").on(t.parentKeyId)],
);

/** What a key's outflows add up to per currency over its life (held amounts included): its total budget's count. */
export const keySpending = table(
  "key_spending",
  {
    keyId: text().notNull().references(() => agentKeys.columns.id),
    currency: text<Currency>().notNull(),
    spent: integer().notNull(),
  },
  (t) => [primaryKey(t.keyId, t.currency)],
);
