import { index, integer, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";

export type PaymentStatus = "PENDING" | "SETTLED" | "REFUNDED";

/**
 * One payment for an HTTP 402 resource. PENDING from the debit (agent's USDC → x402 in flight) until
 * the chain decides: SETTLED once the treasury's EIP-3009 authorization (authorizationNonce) is used
 * on chain, REFUNDED once it provably never can be (validBefore passed in a confirmed block where it
 * was not used). What the resource answers never decides it. internalAgentId is set when payTo is
 * another agent's deposit address: settling credits that agent in the ledger.
 */
export const x402Payments = table(
  "x402_payments",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    url: text().notNull(),
    method: text().notNull(),
    amount: integer().notNull(),
    currency: text<"USDC">().notNull(),
    payTo: text().notNull(),
    internalAgentId: text().references(() => agents.columns.id),
    network: text().notNull(),
    x402Version: integer().notNull(),
    status: text<PaymentStatus>().notNull(),
    /**
     * The EIP-3009 nonce (0x…, lowercase) of the treasury's authorization, and its validBefore (s).
     * Null only on payments from before they were recorded (sqlite 0001).
     */
    authorizationNonce: text(),
    validBefore: integer(),
    /** The settlement transaction: what the server claimed, then what the chain watcher saw. */
    transaction: text(),
    resourceStatus: integer(),
    error: text(),
    /** The restricted key (pp_r_…) that made it; null: the agent key. Its chain governs what it causes later (keys/commitments.ts). */
    keyId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("x402_payments_agent_id_idx").on(t.agentId, t.createdAt),
    index("x402_payments_status_idx").on(t.status),
    uniqueIndex("x402_payments_nonce_idx").on(t.authorizationNonce),
  ],
);

/** Resources verified through the facilitator that carried the bazaar extension: one row per (seller, resource URL). */
export const x402DiscoveredResources = table(
  "x402_discovered_resources",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    resource: text().notNull(),
    /** The advertised entry as JSON: x402Version, accepts, description, mimeType, extensions. */
    entry: text().notNull(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [uniqueIndex("x402_discovered_resources_resource_idx").on(t.agentId, t.resource), index("x402_discovered_resources_created_idx").on(t.createdAt)],
);
