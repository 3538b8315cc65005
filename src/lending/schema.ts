import { index, integer, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import { type LoanId } from "../ids";

/** Rates are basis points of a percent ×100 (5.25 % = 525), so they stay integers. */
export const loanOffers = table(
  "loan_offers",
  {
    id: text().primaryKey(),
    lenderId: text().notNull().references(() => agents.columns.id),
    amount: integer().notNull(),
    currency: text<Currency>().notNull(),
    interestBps: integer().notNull(),
    durationDays: integer().notNull(),
    collateralBps: integer().notNull(),
    status: text().notNull(),
    /** Never later than the expiry of the key that made it, and brought to the moment that key is revoked. */
    expiresAt: integer().notNull(),
    /** The restricted key (pp_r_…) that made it; null: the agent key. Its chain governs what it causes later (keys/commitments.ts). */
    keyId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("loan_offers_status_created_idx").on(t.status, t.createdAt),
    index("loan_offers_lender_id_idx").on(t.lenderId),
    index("loan_offers_status_expires_idx").on(t.status, t.expiresAt),
    index("loan_offers_key_idx").on(t.keyId),
  ],
);

export const loans = table(
  "loans",
  {
    id: text<LoanId>().primaryKey(),
    offerId: text().notNull().references(() => loanOffers.columns.id),
    lenderId: text().notNull().references(() => agents.columns.id),
    borrowerId: text().notNull().references(() => agents.columns.id),
    principal: integer().notNull(),
    currency: text<Currency>().notNull(),
    interestBps: integer().notNull(),
    amountDue: integer().notNull(),
    amountRepaid: integer().notNull(),
    collateral: integer().notNull(),
    dueAt: integer().notNull(),
    status: text().notNull(),
    /** The borrower's restricted key that borrowed (its repayments were counted then); null: the agent key. */
    keyId: text(),
    createdAt: integer().notNull(),
    closedAt: integer(),
  },
  (t) => [
    uniqueIndex("loans_offer_id_idx").on(t.offerId),
    index("loans_lender_id_idx").on(t.lenderId, t.createdAt),
    index("loans_borrower_id_idx").on(t.borrowerId, t.createdAt),
    index("loans_status_due_idx").on(t.status, t.dueAt),
  ],
);
