import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

// No index by agent: payments are read by id; an agent's movements are read from its postings.
// Each extra index is one more random page written per payment.
export const payments = sqliteTable("payments", {
  id: text("id").primaryKey(),
  fromAgentId: text("from_agent_id").notNull().references(() => agents.id),
  toAgentId: text("to_agent_id").notNull().references(() => agents.id),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  reason: text("reason"),
  metadata: json<Record<string, unknown>>()("metadata"),
  /** What caused it: a direct payment, a subscription charge, a booking, ... */
  kind: text("kind").notNull(),
  status: text("status").notNull(),
  createdAt: timestampMs("created_at").notNull(),
});
