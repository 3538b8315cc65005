// Quotes (`qt_…`): a listing priced for one agent (pricing.ts), bookable by it for 15 minutes. The
// terms a quote fixes (the service, the two parties, the price) are what its booking carries on.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso } from "../clock";
import { find, insert, type Row } from "../db";
import { invalid, invalidState, notFound } from "../errors";
import { type AgentId, prefixedId } from "../ids";
import { toMajor, type Currency } from "../money";
import { MINUTE_MS } from "../time";
import { offered } from "./listings";
import { price } from "./pricing";
import { quotes, services, type QuoteUnits } from "./schema";
import { jsonText, readJson } from "../json";

const QUOTE_TTL_MS = 15 * MINUTE_MS;

export type Quote = Row<typeof quotes>;

/** The terms of a quote as its answer and its booking's answer show them. */
export const termsView = (row: Pick<Quote, "serviceId" | "providerId" | "agentId" | "amount" | "currency">) => ({
  serviceId: row.serviceId,
  providerId: row.providerId,
  agentId: row.agentId,
  amount: toMajor(row.amount, row.currency),
  currency: row.currency,
});

function quoteView(row: Quote) {
  return {
    id: row.id,
    ...termsView(row),
    breakdown: readJson(row.breakdown),
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

export function* createQuote(agentId: AgentId, body: { serviceId: string; currency?: Currency } & QuoteUnits) {
  const service = yield* find(services, body.serviceId);
  if (!service) throw notFound("service");
  if (!offered(service)) throw invalidState("this service is no longer offered");
  if (service.providerId === agentId) throw invalid("you cannot quote your own service");
  if (body.currency !== undefined && body.currency !== service.currency) throw invalid(`this service is priced in ${service.currency}`);
  yield* assertNotBlockedBy(service.providerId, agentId);
  const units: QuoteUnits = { nights: body.nights, guests: body.guests, hours: body.hours };
  const { amount, breakdown } = price(service.price, service.currency, service.pricingUnit, units);
  const now = clock.nowMs();
  const row = yield* insert(quotes, {
    id: prefixedId("qt"),
    serviceId: service.id,
    providerId: service.providerId,
    agentId,
    amount,
    currency: service.currency,
    units: JSON.stringify(Object.fromEntries(Object.entries(units).filter(([, value]) => value !== undefined))),
    breakdown: jsonText(breakdown),
    expiresAt: now + QUOTE_TTL_MS,
    createdAt: now,
  });
  return quoteView(row);
}
