import { index, integer, json, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";
import type { Currency } from "../money";
import { payments } from "../payments/schema";

export const PRICING_UNITS = ["FIXED", "PER_HOUR", "PER_NIGHT", "PER_GUEST", "PER_GUEST_NIGHT"] as const;
export type PricingUnit = (typeof PRICING_UNITS)[number];
export const RAILS = ["INTERNAL"] as const;
export type Rail = (typeof RAILS)[number];
/** A booking is confirmed when made: it exists exactly when its payment does. */
export const BOOKING_STATUSES = ["CONFIRMED"] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const services = table(
  "services",
  {
    id: text().primaryKey(),
    providerId: text().notNull().references(() => agents.columns.id),
    name: text().notNull(),
    description: text().notNull(),
    category: text().notNull(),
    price: integer().notNull(),
    currency: text<Currency>().notNull(),
    pricingUnit: text<PricingUnit>().notNull(),
    /** Where the service is also sold over x402 (an agentbank facilitator's seller endpoint, or any), shown in discover. */
    x402Url: text(),
    /** 1 while offered, 0 once withdrawn. */
    active: integer().notNull(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("services_active_created_idx").on(t.active, t.createdAt),
    index("services_provider_id_idx").on(t.providerId),
  ],
);

export type QuoteUnits = { nights?: number; guests?: number; hours?: number };

export const quotes = table(
  "quotes",
  {
    id: text().primaryKey(),
    serviceId: text().notNull().references(() => services.columns.id),
    providerId: text().notNull().references(() => agents.columns.id),
    agentId: text().notNull().references(() => agents.columns.id),
    amount: integer().notNull(),
    currency: text<Currency>().notNull(),
    /** JSON: the units asked for (QuoteUnits). */
    units: text().notNull(),
    /** JSON: how the amount was computed (pricing.ts), shown in the quote. */
    breakdown: json<Record<string, unknown>>().notNull(),
    expiresAt: integer().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [index("quotes_agent_id_idx").on(t.agentId)],
);

/** quote_id is unique: a quote books once. */
export const bookings = table(
  "bookings",
  {
    id: text().primaryKey(),
    quoteId: text().notNull().references(() => quotes.columns.id),
    serviceId: text().notNull().references(() => services.columns.id),
    providerId: text().notNull().references(() => agents.columns.id),
    agentId: text().notNull().references(() => agents.columns.id),
    amount: integer().notNull(),
    currency: text<Currency>().notNull(),
    rail: text<Rail>().notNull(),
    status: text<BookingStatus>().notNull(),
    paymentId: text().notNull().references(() => payments.columns.id),
    createdAt: integer().notNull(),
  },
  (t) => [
    uniqueIndex("bookings_quote_id_idx").on(t.quoteId),
    index("bookings_agent_id_idx").on(t.agentId, t.createdAt),
    index("bookings_provider_id_idx").on(t.providerId, t.createdAt),
  ],
);
