// Listings, quotes and bookings. A booking pays the provider through pay() in the same write op that
// records it, so a booking exists exactly when its payment does.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso } from "../clock";
import { FOR_UPDATE, get, newestFirst, run, type PageWindow, type Query } from "../db";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { boundToMinor, CURRENCIES, toMajor, toMinor, type Currency } from "../money";
import { NO_SANCTION, type Sanction } from "../outflows/check";
import { pay } from "../payments/service";
import { MINUTE_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { price, type PricingUnit } from "./pricing";
import type { QuoteUnits } from "./schema";

export const QUOTE_TTL_MS = 15 * MINUTE_MS;
export const RAILS = ["INTERNAL"] as const;

type ServiceRow = {
  id: string;
  providerId: string;
  name: string;
  description: string;
  category: string;
  price: bigint;
  currency: string;
  pricingUnit: string;
  x402Url: string | null;
  active: bigint;
  createdAt: bigint;
  updatedAt: bigint;
};
/** units and breakdown are JSON text. */
type QuoteRow = {
  id: string;
  serviceId: string;
  providerId: string;
  agentId: string;
  amount: bigint;
  currency: string;
  units: string;
  breakdown: string;
  expiresAt: bigint;
  createdAt: bigint;
};
type BookingRow = {
  id: string;
  quoteId: string;
  serviceId: string;
  providerId: string;
  agentId: string;
  amount: bigint;
  currency: string;
  rail: string;
  status: string;
  paymentId: string;
  createdAt: bigint;
};

const SERVICE_COLUMNS = `id, provider_id AS providerId, name, description, category, price, currency, pricing_unit AS pricingUnit,
  x402_url AS x402Url, active, created_at AS createdAt, updated_at AS updatedAt`;
const QUOTE_COLUMNS = `id, service_id AS serviceId, provider_id AS providerId, agent_id AS agentId, amount, currency, units, breakdown,
  expires_at AS expiresAt, created_at AS createdAt`;
const BOOKING_COLUMNS = `id, quote_id AS quoteId, service_id AS serviceId, provider_id AS providerId, agent_id AS agentId, amount, currency,
  rail, status, payment_id AS paymentId, created_at AS createdAt`;

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
    x402Url: row.x402Url,
    active: Number(row.active) === 1,
    createdAt: iso(Number(row.createdAt)),
    updatedAt: iso(Number(row.updatedAt)),
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
    breakdown: JSON.parse(row.breakdown) as Record<string, unknown>,
    expiresAt: iso(Number(row.expiresAt)),
    createdAt: iso(Number(row.createdAt)),
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
    createdAt: iso(Number(row.createdAt)),
  };
}

const findService = (id: string) => get<ServiceRow>(`SELECT ${SERVICE_COLUMNS} FROM services WHERE id = ?`, id);

export type Listing = { name: string; description: string; category: string; price: number; currency: Currency; pricingUnit: PricingUnit; x402Url?: string | null };

export function* createService(providerId: string, body: Listing) {
  const now = BigInt(clock.nowMs());
  const row: ServiceRow = {
    id: prefixedId("svc"),
    providerId,
    name: body.name,
    description: body.description,
    category: body.category,
    price: toMinor(body.price, body.currency, "price"),
    currency: body.currency,
    pricingUnit: body.pricingUnit,
    x402Url: body.x402Url ?? null,
    active: 1n,
    createdAt: now,
    updatedAt: now,
  };
  yield* run(
    `INSERT INTO services (id, provider_id, name, description, category, price, currency, pricing_unit, x402_url, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.providerId,
    row.name,
    row.description,
    row.category,
    row.price,
    row.currency,
    row.pricingUnit,
    row.x402Url,
    row.active,
    row.createdAt,
    row.updatedAt,
  );
  return serviceView(row);
}

/** The provider's own listing, locked: an update writes every field from what it read. */
function* ownService(providerId: string, id: string): Query<ServiceRow> {
  const row = yield* get<ServiceRow>(`SELECT ${SERVICE_COLUMNS} FROM services WHERE id = ? ${FOR_UPDATE}`, id);
  if (!row || row.providerId !== providerId) throw notFound("service");
  return row;
}

export function* updateService(providerId: string, id: string, changes: Partial<Listing> & { active?: boolean }) {
  const row = yield* ownService(providerId, id);
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
    x402Url: changes.x402Url === undefined ? row.x402Url : changes.x402Url,
    active: changes.active === undefined ? row.active : changes.active ? 1n : 0n,
    updatedAt: BigInt(clock.nowMs()),
  };
  yield* run(
    "UPDATE services SET name = ?, description = ?, category = ?, price = ?, currency = ?, pricing_unit = ?, x402_url = ?, active = ?, updated_at = ? WHERE id = ?",
    next.name,
    next.description,
    next.category,
    next.price,
    next.currency,
    next.pricingUnit,
    next.x402Url,
    next.active,
    next.updatedAt,
    id,
  );
  return serviceView(next);
}

export const deactivateService = (providerId: string, id: string) => updateService(providerId, id, { active: false });

export function* getService(id: string) {
  const row = yield* findService(id);
  if (!row) throw notFound("service");
  return serviceView(row);
}

export function discover(filter: { category?: string; currency?: Currency; minPrice?: number; maxPrice?: number }, window: PageWindow) {
  // Every active listing is the list; the query's filters narrow it.
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.category) {
    conditions.push("category = ?");
    params.push(filter.category);
  }
  if (filter.currency) {
    conditions.push("currency = ?");
    params.push(filter.currency);
  }
  // Price bounds are in each listing's own currency, compared exactly in its minor units.
  const bound = (value: number, round: "floor" | "ceil", compare: ">=" | "<=") => {
    const currencies = filter.currency ? [filter.currency] : CURRENCIES;
    conditions.push(`(${currencies.map(() => `(currency = ? AND price ${compare} ?)`).join(" OR ")})`);
    for (const currency of currencies) params.push(currency, boundToMinor(value, currency, round));
  };
  if (filter.minPrice !== undefined) bound(filter.minPrice, "ceil", ">=");
  if (filter.maxPrice !== undefined) bound(filter.maxPrice, "floor", "<=");
  const narrow = conditions.length > 0 ? { where: conditions.join(" AND "), params } : undefined;
  return newestFirst({ table: "services", columns: SERVICE_COLUMNS, scope: { where: "active = 1", params: [] }, narrow }, window, serviceView);
}

export function* createQuote(agentId: string, body: { serviceId: string; currency?: Currency } & QuoteUnits) {
  const service = yield* findService(body.serviceId);
  if (!service) throw notFound("service");
  if (Number(service.active) !== 1) throw invalidState("this service is no longer offered");
  if (service.providerId === agentId) throw invalid("you cannot quote your own service");
  if (body.currency !== undefined && body.currency !== service.currency) throw invalid(`this service is priced in ${service.currency}`);
  yield* assertNotBlockedBy(service.providerId, agentId);
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
    units: JSON.stringify(Object.fromEntries(Object.entries(units).filter(([, value]) => value !== undefined))),
    breakdown: JSON.stringify(breakdown),
    expiresAt: BigInt(now + QUOTE_TTL_MS),
    createdAt: BigInt(now),
  };
  yield* run(
    `INSERT INTO quotes (id, service_id, provider_id, agent_id, amount, currency, units, breakdown, expires_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.serviceId,
    row.providerId,
    row.agentId,
    row.amount,
    row.currency,
    row.units,
    row.breakdown,
    row.expiresAt,
    row.createdAt,
  );
  return quoteView(row);
}

/** With the owner's grant, a quote that expired while the owner decided still holds: its price was fixed when the booking was held. */
export function* book(agentId: string, body: { quoteId: string; rail?: string }, sanction: Sanction = NO_SANCTION) {
  const rail = body.rail ?? "INTERNAL";
  if (!(RAILS as readonly string[]).includes(rail)) throw invalid(`rail ${rail} is not supported; supported rails: ${RAILS.join(", ")}`);
  const quote = yield* get<QuoteRow>(`SELECT ${QUOTE_COLUMNS} FROM quotes WHERE id = ?`, body.quoteId);
  if (!quote || quote.agentId !== agentId) throw notFound("quote");
  if (yield* get<{ id: string }>("SELECT id FROM bookings WHERE quote_id = ?", quote.id)) throw invalidState("this quote is already booked");
  if (!sanction.grant && Number(quote.expiresAt) <= clock.nowMs()) throw invalidState("this quote has expired; ask for a new one");
  const service = (yield* findService(quote.serviceId))!;
  if (Number(service.active) !== 1) throw invalidState("this service is no longer offered");
  const currency = quote.currency as Currency;
  const id = prefixedId("bk");
  const payment = yield* pay({
    fromAgentId: agentId,
    toAgentId: quote.providerId,
    amount: quote.amount,
    currency,
    reason: `booking ${id}: ${service.name}`,
    metadata: { bookingId: id, quoteId: quote.id, serviceId: service.id },
    kind: "BOOKING",
    outflow: { kind: "BOOKING", terms: body },
    sanction,
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
    createdAt: BigInt(clock.nowMs()),
  };
  yield* run(
    `INSERT INTO bookings (id, quote_id, service_id, provider_id, agent_id, amount, currency, rail, status, payment_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.quoteId,
    row.serviceId,
    row.providerId,
    row.agentId,
    row.amount,
    row.currency,
    row.rail,
    row.status,
    row.paymentId,
    row.createdAt,
  );
  yield* notifyFinancial(
    quote.providerId,
    "booking.received",
    { bookingId: id, serviceId: service.id, agentId, amount: toMajor(quote.amount, currency), currency, paymentId: payment.id },
    `Booking of ${service.name}: ${toMajor(quote.amount, currency)} ${currency}`,
  );
  return bookingView(row);
}

export function listBookings(agentId: string, filter: { role?: "buyer" | "provider" }, window: PageWindow) {
  const scope = { where: "(agent_id = ? OR provider_id = ?)", params: [agentId, agentId] };
  const narrow = filter.role ? { where: filter.role === "buyer" ? "agent_id = ?" : "provider_id = ?", params: [agentId] } : undefined;
  return newestFirst({ table: "bookings", columns: BOOKING_COLUMNS, scope, narrow }, window, bookingView);
}

export function* getBooking(agentId: string, id: string) {
  const row = yield* get<BookingRow>(`SELECT ${BOOKING_COLUMNS} FROM bookings WHERE id = ?`, id);
  if (!row || (row.agentId !== agentId && row.providerId !== agentId)) throw notFound("booking");
  return bookingView(row);
}
