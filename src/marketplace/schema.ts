import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, json, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";
import { payments } from "../payments/schema";

export const services = sqliteTable(
  "services",
  {
    id: text("id").primaryKey(),
    providerId: text("provider_id").notNull().references(() => agents.id),
    name: text("name").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    price: money("price").notNull(),
    currency: text("currency").notNull(),
    pricingUnit: text("pricing_unit").notNull(),
    active: int("active").notNull(),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [
    index("services_active_created_idx").on(table.active, table.createdAt),
    index("services_provider_id_idx").on(table.providerId),
  ],
);

export type QuoteUnits = { nights?: number; guests?: number; hours?: number };

export const quotes = sqliteTable(
  "quotes",
  {
    id: text("id").primaryKey(),
    serviceId: text("service_id").notNull().references(() => services.id),
    providerId: text("provider_id").notNull().references(() => agents.id),
    agentId: text("agent_id").notNull().references(() => agents.id),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    units: json<QuoteUnits>()("units").notNull(),
    breakdown: json<Record<string, unknown>>()("breakdown").notNull(),
    expiresAt: timestampMs("expires_at").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("quotes_agent_id_idx").on(table.agentId)],
);

/** quote_id is unique: a quote books once. */
export const bookings = sqliteTable(
  "bookings",
  {
    id: text("id").primaryKey(),
    quoteId: text("quote_id").notNull().references(() => quotes.id),
    serviceId: text("service_id").notNull().references(() => services.id),
    providerId: text("provider_id").notNull().references(() => agents.id),
    agentId: text("agent_id").notNull().references(() => agents.id),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    rail: text("rail").notNull(),
    status: text("status").notNull(),
    paymentId: text("payment_id").notNull().references(() => payments.id),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("bookings_quote_id_idx").on(table.quoteId),
    index("bookings_agent_id_idx").on(table.agentId, table.createdAt),
    index("bookings_provider_id_idx").on(table.providerId, table.createdAt),
  ],
);
