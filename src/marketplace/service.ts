// Listings, quotes and bookings. A booking pays the provider through pay() in the same write op that
// records it, so a booking exists exactly when its payment does.
import { and, desc, eq, gte, lte, or, sql, type SQL } from "drizzle-orm";
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso } from "../clock";
import { db } from "../db";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { boundToMinor, CURRENCIES, toMajor, toMinor, type Currency } from "../money";
import { pay } from "../payments/service";
import { notifyFinancial } from "../webhooks/outbox";
import { price, type PricingUnit } from "./pricing";
import { bookings, quotes, services, type QuoteUnits } from "./schema";

export const QUOTE_TTL_MS = 15 * 60 * 1000;
export const RAILS = ["INTERNAL"] as const;

type ServiceRow = typeof services.$inferSelect;
type QuoteRow = typeof quotes.$inferSelect;
type BookingRow = typeof bookings.$inferSelect;

export function serviceView(row: ServiceRow) {
  return {
    id: row.id,
    providerId: row.providerId,
    name: row.name,
    description: row.description,
    category: row.category,
    price: toMajor(row.price, row.currency as Currency),
    currency: row.currency,
    pricingUnit: row.pricingUnit,
    active: row.active === 1,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

function quoteView(row: QuoteRow) {
  return {
    id: row.id,
    serviceId: row.serviceId,
    providerId: row.providerId,
    agentId: row.agentId,
    amount: toMajor(row.amount, row.currency as Currency),
    currency: row.currency,
    breakdown: row.breakdown,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

function bookingView(row: BookingRow) {
  return {
    id: row.id,
    quoteId: row.quoteId,
    serviceId: row.serviceId,
    providerId: row.providerId,
    agentId: row.agentId,
    amount: toMajor(row.amount, row.currency as Currency),
    currency: row.currency,
    rail: row.rail,
    status: row.status,
    paymentId: row.paymentId,
    createdAt: iso(row.createdAt),
  };
}

const findService = (id: string) => db.select().from(services).where(eq(services.id, id)).get();

export type Listing = { name: string; description: string; category: string; price: number; currency: Currency; pricingUnit: PricingUnit };

export function createService(providerId: string, body: Listing) {
  const now = clock.nowMs();
  const row: ServiceRow = {
    id: prefixedId("svc"),
    providerId,
    name: body.name,
    description: body.description,
    category: body.category,
    price: toMinor(body.price, body.currency, "price"),
    currency: body.currency,
    pricingUnit: body.pricingUnit,
    active: 1,
    createdAt: now,
    updatedAt: now,
  };
  db.insert(services).values(row).run();
  return serviceView(row);
}

function ownService(providerId: string, id: string): ServiceRow {
  const row = findService(id);
  if (!row || row.providerId !== providerId) throw notFound("service");
  return row;
}

export function updateService(providerId: string, id: string, changes: Partial<Listing> & { active?: boolean }) {
  const row = ownService(providerId, id);
  const currency = changes.currency ?? (row.currency as Currency);
  const next: ServiceRow = {
    ...row,
    name: changes.name ?? row.name,
    description: changes.description ?? row.description,
    category: changes.category ?? row.category,
    currency,
    price:
      changes.price !== undefined
        ? toMinor(changes.price, currency, "price")
        : changes.currency !== undefined
          ? toMinor(toMajor(row.price, row.currency as Currency), currency, "price")
          : row.price,
    pricingUnit: changes.pricingUnit ?? row.pricingUnit,
    active: changes.active === undefined ? row.active : changes.active ? 1 : 0,
    updatedAt: clock.nowMs(),
  };
  db.update(services).set(next).where(eq(services.id, id)).run();
  return serviceView(next);
}

export const deactivateService = (providerId: string, id: string) => updateService(providerId, id, { active: false });

export function getService(id: string) {
  const row = findService(id);
  if (!row) throw notFound("service");
  return serviceView(row);
}

export function discover(filter: { category?: string; currency?: Currency; minPrice?: number; maxPrice?: number; limit: number; offset: number }) {
  const conditions: SQL[] = [eq(services.active, 1)];
  if (filter.category) conditions.push(eq(services.category, filter.category));
  if (filter.currency) conditions.push(eq(services.currency, filter.currency));
  // Price bounds are in each listing's own currency, compared exactly in its minor units.
  const bound = (value: number, round: "floor" | "ceil", compare: typeof gte) =>
    or(...(filter.currency ? [filter.currency] : CURRENCIES).map((currency) => and(eq(services.currency, currency), compare(services.price, boundToMinor(value, currency, round)))))!;
  if (filter.minPrice !== undefined) conditions.push(bound(filter.minPrice, "ceil", gte));
  if (filter.maxPrice !== undefined) conditions.push(bound(filter.maxPrice, "floor", lte));
  const where = and(...conditions);
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(services).where(where).get()!.n;
  const rows = db.select().from(services).where(where).orderBy(desc(services.createdAt), desc(services.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(serviceView), total };
}

export function createQuote(agentId: string, body: { serviceId: string; currency?: Currency } & QuoteUnits) {
  const service = findService(body.serviceId);
  if (!service) throw notFound("service");
  if (service.active !== 1) throw invalidState("this service is no longer offered");
  if (service.providerId === agentId) throw invalid("you cannot quote your own service");
  if (body.currency !== undefined && body.currency !== service.currency) throw invalid(`this service is priced in ${service.currency}`);
  assertNotBlockedBy(service.providerId, agentId);
  const currency = service.currency as Currency;
  const units: QuoteUnits = { nights: body.nights, guests: body.guests, hours: body.hours };
  const { amount, breakdown } = price(service.price, currency, service.pricingUnit as PricingUnit, units);
  const now = clock.nowMs();
  const row: QuoteRow = {
    id: prefixedId("qt"),
    serviceId: service.id,
    providerId: service.providerId,
    agentId,
    amount,
    currency,
    units: Object.fromEntries(Object.entries(units).filter(([, value]) => value !== undefined)),
    breakdown,
    expiresAt: now + QUOTE_TTL_MS,
    createdAt: now,
  };
  db.insert(quotes).values(row).run();
  return quoteView(row);
}

export function book(agentId: string, body: { quoteId: string; rail?: string }) {
  const rail = body.rail ?? "INTERNAL";
  if (!(RAILS as readonly string[]).includes(rail)) throw invalid(`rail ${rail} is not supported; supported rails: ${RAILS.join(", ")}`);
  const quote = db.select().from(quotes).where(eq(quotes.id, body.quoteId)).get();
  if (!quote || quote.agentId !== agentId) throw notFound("quote");
  if (db.select({ id: bookings.id }).from(bookings).where(eq(bookings.quoteId, quote.id)).get()) throw invalidState("this quote is already booked");
  if (quote.expiresAt <= clock.nowMs()) throw invalidState("this quote has expired; ask for a new one");
  const service = findService(quote.serviceId)!;
  if (service.active !== 1) throw invalidState("this service is no longer offered");
  const currency = quote.currency as Currency;
  const id = prefixedId("bk");
  const payment = pay({
    fromAgentId: agentId,
    toAgentId: quote.providerId,
    amount: quote.amount,
    currency,
    reason: `booking ${id}: ${service.name}`,
    metadata: { bookingId: id, quoteId: quote.id, serviceId: service.id },
    kind: "BOOKING",
  });
  const row: BookingRow = {
    id,
    quoteId: quote.id,
    serviceId: quote.serviceId,
    providerId: quote.providerId,
    agentId,
    amount: quote.amount,
    currency,
    rail,
    status: "CONFIRMED",
    paymentId: payment.id,
    createdAt: clock.nowMs(),
  };
  db.insert(bookings).values(row).run();
  notifyFinancial(
    quote.providerId,
    "booking.received",
    { bookingId: id, serviceId: service.id, agentId, amount: toMajor(quote.amount, currency), currency, paymentId: payment.id },
    `Booking of ${service.name}: ${toMajor(quote.amount, currency)} ${currency}`,
  );
  return bookingView(row);
}

export function listBookings(agentId: string, filter: { role?: "buyer" | "provider"; limit: number; offset: number }) {
  const where =
    filter.role === "buyer"
      ? eq(bookings.agentId, agentId)
      : filter.role === "provider"
        ? eq(bookings.providerId, agentId)
        : or(eq(bookings.agentId, agentId), eq(bookings.providerId, agentId))!;
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(bookings).where(where).get()!.n;
  const rows = db.select().from(bookings).where(where).orderBy(desc(bookings.createdAt), desc(bookings.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(bookingView), total };
}

export function getBooking(agentId: string, id: string) {
  const row = db.select().from(bookings).where(eq(bookings.id, id)).get();
  if (!row || (row.agentId !== agentId && row.providerId !== agentId)) throw notFound("booking");
  return bookingView(row);
}
