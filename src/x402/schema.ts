import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * One payment for an HTTP 402 resource: PENDING (agent debited, authorization sent) → SETTLED (the
 * resource answered 2xx with a settlement header) | REFUNDED (it did not: the funds went back).
 * internalAgentId is set when payTo is another agent's deposit address: settled inside the ledger.
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
    transaction: text("transaction"),
    resourceStatus: int("resource_status"),
    error: text("error"),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [index("x402_payments_agent_id_idx").on(table.agentId, table.createdAt)],
);
