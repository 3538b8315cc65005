import { integer, json, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";

/** What caused a payment: a direct payment, a subscription charge, a booking. */
export type PaymentKind = "DIRECT" | "SUBSCRIPTION" | "BOOKING";

// No index by agent: payments are read by id; an agent's movements are read from its postings.
// Each extra index is one more random page written per payment.
export const payments = table("payments", {
  id: text().primaryKey(),
  fromAgentId: text().notNull().references(() => agents.columns.id),
  toAgentId: text().notNull().references(() => agents.columns.id),
  amount: integer().notNull(),
  currency: text<Currency>().notNull(),
  reason: text(),
  metadata: json<Record<string, unknown>>(),
  kind: text<PaymentKind>().notNull(),
  /** Payments complete at once. */
  status: text<"COMPLETED">().notNull(),
  createdAt: integer().notNull(),
  /** The restricted key that made it; null: the agent key (or the owner's approval). */
  keyId: text(),
});
