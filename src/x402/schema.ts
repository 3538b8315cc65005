import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * One payment for an HTTP 402 resource. PENDING from the debit (agent's USDC → x402 in flight) until
 * the chain decides: SETTLED once the treasury's EIP-3009 authorization (authorizationNonce) is used
 * on chain, REFUNDED once it provably never can be (validBefore passed in a confirmed block where it
 * was not used). What the resource answers never decides it. internalAgentId is set when payTo is
 * another agent's deposit address: settling credits that agent in the ledger.
 */
export const x402Payments = sqliteTable(
  "x402_payments",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    url: text("url").notNull(),
    method: text("method").notNull(),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    payTo: text("pay_to").notNull(),
    internalAgentId: text("internal_agent_id").references(() => agents.id),
    network: text("network").notNull(),
    x402Version: int("x402_version").notNull(),
    status: text("status").notNull(),
    /** The EIP-3009 nonce (0x…, lowercase) of the treasury's authorization, and its validBefore (s). */
    authorizationNonce: text("authorization_nonce"),
    validBefore: int("valid_before"),
    /** The settlement transaction: what the server claimed, then what the chain watcher saw. */
    transaction: text("transaction"),
    resourceStatus: int("resource_status"),
    error: text("error"),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [
    index("x402_payments_agent_id_idx").on(table.agentId, table.createdAt),
    index("x402_payments_status_idx").on(table.status),
    uniqueIndex("x402_payments_nonce_idx").on(table.authorizationNonce),
  ],
);
