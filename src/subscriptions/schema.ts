import { index, integer, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import { payments } from "../payments/schema";
import type { Frequency } from "./periods";

/**
 * nextPeriod is the number of the next period to charge (period 0 is charged at creation); period n
 * is due at anchorAt + n periods. PAST_DUE: the charge of nextPeriod failed; retried at nextAttemptAt.
 */
export const subscriptions = table(
  "subscriptions",
  {
    id: text().primaryKey(),
    payerId: text().notNull().references(() => agents.columns.id),
    recipientId: text().notNull().references(() => agents.columns.id),
    amount: integer().notNull(),
    currency: text<Currency>().notNull(),
    frequency: text<Frequency>().notNull(),
    status: text().notNull(),
    anchorAt: integer().notNull(),
    nextPeriod: integer().notNull(),
    failedAttempts: integer().notNull(),
    nextAttemptAt: integer(),
    /** When the next charge attempt is due (the due-work index, src/due.ts); null once CANCELLED. */
    nextChargeAt: integer(),
    lastError: text(),
    cancelledAt: integer(),
    cancelReason: text(),
    /** The restricted key (pp_r_…) that made it; null: the agent key. Its chain governs what it causes later (keys/commitments.ts). */
    keyId: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("subscriptions_payer_id_idx").on(t.payerId, t.createdAt),
    index("subscriptions_recipient_id_idx").on(t.recipientId, t.createdAt),
    index("subscriptions_status_idx").on(t.status),
    index("subscriptions_next_charge_idx").on(t.nextChargeAt),
  ],
);

/** One row per charged period: the unique key makes a second charge of a period impossible. */
export const subscriptionCharges = table(
  "subscription_charges",
  {
    id: text().primaryKey(),
    subscriptionId: text().notNull().references(() => subscriptions.columns.id),
    period: integer().notNull(),
    paymentId: text().notNull().references(() => payments.columns.id),
    dueAt: integer().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex("subscription_charges_period_idx").on(t.subscriptionId, t.period)],
);
