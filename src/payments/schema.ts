import { integer, table, text } from "../db/tables";
import { agents } from "../agents/schema";

// No index by agent: payments are read by id; an agent's movements are read from its postings.
// Each extra index is one more random page written per payment.
export const payments = table("payments", {
  id: text().primaryKey(),
  fromAgentId: text().notNull().references(() => agents.columns.id),
  toAgentId: text().notNull().references(() => agents.columns.id),
  amount: integer().notNull(),
  currency: text().notNull(),
  reason: text(),
  metadata: text(),
  /** What caused it: a direct payment, a subscription charge, a booking, ... */
  kind: text().notNull(),
  status: text().notNull(),
  createdAt: integer().notNull(),
  /** The restricted key that made it; null: the agent key (or the owner's approval). */
  keyId: text(),
});
