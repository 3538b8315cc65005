import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/** Rates are basis points of a percent ×100 (5.25 % = 525), so they stay integers. */
export const loanOffers = sqliteTable(
  "loan_offers",
  {
    id: text("id").primaryKey(),
    lenderId: text("lender_id").notNull().references(() => agents.id),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    interestBps: int("interest_bps").notNull(),
    durationDays: int("duration_days").notNull(),
    collateralBps: int("collateral_bps").notNull(),
    status: text("status").notNull(),
    expiresAt: timestampMs("expires_at").notNull(),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [
    index("loan_offers_status_created_idx").on(table.status, table.createdAt),
    index("loan_offers_lender_id_idx").on(table.lenderId),
  ],
);

export const loans = sqliteTable(
  "loans",
  {
    id: text("id").primaryKey(),
    offerId: text("offer_id").notNull().references(() => loanOffers.id),
    lenderId: text("lender_id").notNull().references(() => agents.id),
    borrowerId: text("borrower_id").notNull().references(() => agents.id),
    principal: money("principal").notNull(),
    currency: text("currency").notNull(),
    interestBps: int("interest_bps").notNull(),
    amountDue: money("amount_due").notNull(),
    amountRepaid: money("amount_repaid").notNull(),
    collateral: money("collateral").notNull(),
    dueAt: timestampMs("due_at").notNull(),
    status: text("status").notNull(),
    createdAt: timestampMs("created_at").notNull(),
    closedAt: timestampMs("closed_at"),
  },
  (table) => [
    uniqueIndex("loans_offer_id_idx").on(table.offerId),
    index("loans_lender_id_idx").on(table.lenderId, table.createdAt),
    index("loans_borrower_id_idx").on(table.borrowerId, table.createdAt),
    index("loans_status_due_idx").on(table.status, table.dueAt),
  ],
);
