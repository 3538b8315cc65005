import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";
import { payments } from "../payments/schema";

/**
 * nextPeriod is the number of the next period to charge (period 0 is charged at creation); period n
 * is due at anchorAt + n periods. PAST_DUE: the charge of nextPeriod failed; retried at nextAttemptAt.
 */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    payerId: text("payer_id").notNull().references(() => agents.id),
    recipientId: text("recipient_id").notNull().references(() => agents.id),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    frequency: text("frequency").notNull(),
    status: text("status").notNull(),
    anchorAt: timestampMs("anchor_at").notNull(),
    nextPeriod: int("next_period").notNull(),
    failedAttempts: int("failed_attempts").notNull(),
    nextAttemptAt: timestampMs("next_attempt_at"),
    lastError: text("last_error"),
    cancelledAt: timestampMs("cancelled_at"),
    cancelReason: text("cancel_reason"),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    index("subscriptions_payer_id_idx").on(table.payerId, table.createdAt),
    index("subscriptions_recipient_id_idx").on(table.recipientId, table.createdAt),
    index("subscriptions_status_idx").on(table.status),
  ],
);

/** One row per charged period: the unique key makes a second charge of a period impossible. */
export const subscriptionCharges = sqliteTable(
  "subscription_charges",
  {
    id: text("id").primaryKey(),
    subscriptionId: text("subscription_id").notNull().references(() => subscriptions.id),
    period: int("period").notNull(),
    paymentId: text("payment_id").notNull().references(() => payments.id),
    dueAt: timestampMs("due_at").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [uniqueIndex("subscription_charges_period_idx").on(table.subscriptionId, table.period)],
);
