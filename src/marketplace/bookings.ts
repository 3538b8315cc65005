// Bookings (`bk_…`): a quote booked by the agent it was made for. A booking pays the provider through
// pay() in the same write op that records it, so a booking exists exactly when its payment does.
import { clock, iso } from "../clock";
import { find, insert, newestFirst, select, type PageWindow, type Row } from "../db";
import { invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { type AgentId, prefixedId } from "../ids";
import { toMajor } from "../money";
import { NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { pay } from "../payments/service";
import { notifyFinancial } from "../webhooks/outbox";
import { offered } from "./listings";
import { termsView } from "./quotes";
import { bookings, quotes, RAILS, services, type Rail } from "./schema";


type Booking = Row<typeof bookings>;

const isRail = (rail: string): rail is Rail => (RAILS as readonly string[]).includes(rail);

function bookingView(row: Booking) {
  return {
    id: row.id,
    quoteId: row.quoteId,
    ...termsView(row),
    rail: row.rail,
    status: row.status,
    paymentId: row.paymentId,
    createdAt: iso(row.createdAt),
  };
}

/** With the owner's grant, a quote that expired while the owner decided still holds: its price was fixed when the booking was held. */
/** What book answers: the quote unknown, not the caller's, expired or used, the provider blocking the buyer, short of money, or refused by the outflow check. */
export const BOOK_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* book(agentId: AgentId, body: { quoteId: string; rail?: string }, sanction: Sanction = NO_SANCTION) {
  const rail = body.rail ?? "INTERNAL";
  if (!isRail(rail)) throw invalid(`rail ${rail} is not supported; supported rails: ${RAILS.join(", ")}`);
  const quote = yield* find(quotes, body.quoteId);
  if (!quote || quote.agentId !== agentId) throw notFound("quote");
  if ((yield* select(bookings, "quote_id = ?", quote.id)).length > 0) throw invalidState("this quote is already booked");
  if (!sanction.grant && quote.expiresAt <= clock.nowMs()) throw invalidState("this quote has expired; ask for a new one");
  const service = (yield* find(services, quote.serviceId))!;
  if (!offered(service)) throw invalidState("this service is no longer offered");
  const { currency } = quote;
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
  const row = yield* insert(bookings, {
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
  });
  yield* notifyFinancial(
    quote.providerId,
    "booking.received",
    { bookingId: id, serviceId: service.id, agentId, amount: toMajor(quote.amount, currency), currency, paymentId: payment.id },
    `Booking of ${service.name}: ${toMajor(quote.amount, currency)} ${currency}`,
  );
  return bookingView(row);
}

export function listBookings(agentId: AgentId, filter: { role?: "buyer" | "provider" }, window: PageWindow) {
  const scope = { where: "(agent_id = ? OR provider_id = ?)", params: [agentId, agentId] };
  const narrow = filter.role ? { where: filter.role === "buyer" ? "agent_id = ?" : "provider_id = ?", params: [agentId] } : undefined;
  return newestFirst({ table: bookings, scope, narrow }, window, bookingView);
}

export function* getBooking(agentId: AgentId, id: string) {
  const row = yield* find(bookings, id);
  if (!row || (row.agentId !== agentId && row.providerId !== agentId)) throw notFound("booking");
  return bookingView(row);
}
