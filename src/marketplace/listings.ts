// Listings (`svc_…`): what a provider offers, changed or withdrawn only by it, and discover, the
// public list of what is still offered. Quotes (quotes.ts) price a listing; bookings (bookings.ts) pay it.
import { clock, iso } from "../clock";
import { find, insert, newestFirst, update, type PageWindow, type Op, type Row } from "../db";
import { notFound } from "../errors";
import { type AgentId, prefixedId } from "../ids";
import { boundToMinor, CURRENCIES, toMajor, toMinor, type Currency } from "../money";
import { services, type PricingUnit } from "./schema";

export type Listing = Row<typeof services>;

/** What a provider says of a listing: given whole when listing it, in part when changing it. */
export type ListingTerms = { name: string; description: string; category: string; price: number; currency: Currency; pricingUnit: PricingUnit; x402Url?: string | null };

/** Still offered: in discover, may be quoted and booked. */
export const offered = (row: Listing) => row.active === 1n;

export function serviceView(row: Listing) {
  return {
    id: row.id,
    providerId: row.providerId,
    name: row.name,
    description: row.description,
    category: row.category,
    price: toMajor(row.price, row.currency),
    currency: row.currency,
    pricingUnit: row.pricingUnit,
    x402Url: row.x402Url,
    active: offered(row),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function* createService(providerId: AgentId, body: ListingTerms) {
  const now = clock.nowMs();
  const row = yield* insert(services, {
    id: prefixedId("svc"),
    providerId,
    name: body.name,
    description: body.description,
    category: body.category,
    price: toMinor(body.price, body.currency, "price"),
    currency: body.currency,
    pricingUnit: body.pricingUnit,
    x402Url: body.x402Url ?? null,
    active: 1,
    createdAt: now,
    updatedAt: now,
  });
  return serviceView(row);
}

/** The provider's own listing, locked: a change of currency converts the price it read. Anyone else gets 404. */
function* ownListing(providerId: AgentId, id: string): Op<Listing> {
  const row = yield* find(services, id, true);
  if (!row || row.providerId !== providerId) throw notFound("service");
  return row;
}

export function* updateService(providerId: AgentId, id: string, changes: Partial<ListingTerms> & { active?: boolean }) {
  const row = yield* ownListing(providerId, id);
  const currency = changes.currency ?? row.currency;
  // A new currency without a new price keeps the price's major amount, at the new currency's precision.
  const price =
    changes.price !== undefined
      ? toMinor(changes.price, currency, "price")
      : changes.currency !== undefined
        ? toMinor(toMajor(row.price, row.currency), currency, "price")
        : undefined;
  const next = yield* update(services, id, {
    name: changes.name,
    description: changes.description,
    category: changes.category,
    price,
    currency: changes.currency,
    pricingUnit: changes.pricingUnit,
    x402Url: changes.x402Url,
    active: changes.active === undefined ? undefined : changes.active ? 1 : 0,
    updatedAt: clock.nowMs(),
  });
  return serviceView(next);
}

export const deactivateService = (providerId: AgentId, id: string) => updateService(providerId, id, { active: false });

export function* getService(id: string) {
  const row = yield* find(services, id);
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
  return newestFirst({ table: services, scope: { where: "active = 1", params: [] }, narrow }, window, serviceView);
}
