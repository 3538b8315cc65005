import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS } from "../door";
import { Amount, Currency, docs, paged, PageQuery } from "../http/models";
import { UNIT_LIMITS } from "./pricing";
import { PRICING_UNITS, RAILS } from "./schema";
import { book, BOOK_ERRORS, getBooking, listBookings } from "./bookings";
import { createService, deactivateService, discover, getService, updateService } from "./listings";
import { createQuote } from "./quotes";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Booking, BookingPage, Quote, Service, ServicePage } from "./model";

const ServiceId = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const PricingUnit = t.Union(PRICING_UNITS.map((unit) => t.Literal(unit)));
const listing = {
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.String({ maxLength: 2000 }),
  category: t.String({ minLength: 1, maxLength: 50 }),
  price: Amount(),
  currency: Currency,
  pricingUnit: PricingUnit,
  x402Url: t.Optional(
    t.Union([t.String({ format: "uri", pattern: "^https?://", maxLength: 2000, description: "where the service is also sold over x402 (http or https), shown in discover" }), t.Null()]),
  ),
};
const units = (name: keyof typeof UNIT_LIMITS) => t.Optional(t.Number({ minimum: 1, maximum: UNIT_LIMITS[name], multipleOf: 1 }));

export const serviceRoutes = new Elysia({ prefix: "/services", name: "services" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => createService(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object(listing),
    ...answers(docs("Marketplace", "List a service the caller provides", "agent", ONCE_ERRORS), { 201: Service }),
  })
  .get(
    "/discover",
    ({ query, read }) => paged(query, (window) => read(discover(query, window))),
    {
      query: t.Object({
        ...PageQuery.properties,
        category: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
        currency: t.Optional(Currency),
        minPrice: t.Optional(t.Number({ minimum: 0, maximum: 1e9 })),
        maxPrice: t.Optional(t.Number({ minimum: 0, maximum: 1e9 })),
      }),
      ...answers(docs("Marketplace", "Active listings, newest first; price bounds are in each listing's currency", "public"), { 200: ServicePage }),
    },
  )
  .get("/:id", ({ params, read }) => read(getService(params.id)), {
    params: ServiceId,
    ...answers(docs("Marketplace", "One listing", "public", ["NOT_FOUND"]), { 200: Service }),
  })
  .patch("/:id", ({ agent, params, body, write }) => write(() => updateService(agent.id, params.id, body)), {
    agent: true,
    params: ServiceId,
    body: t.Partial(t.Object({ ...listing, active: t.Boolean() }), { minProperties: 1 }),
    ...answers(docs("Marketplace", "Change a listing (provider only)", "agent", ["NOT_FOUND"]), { 200: Service }),
  })
  .delete("/:id", ({ agent, params, write }) => write(() => deactivateService(agent.id, params.id)), {
    agent: true,
    params: ServiceId,
    ...answers(docs("Marketplace", "Withdraw a listing (provider only): gone from discover, no new quotes", "agent", ["NOT_FOUND"]), { 200: Service }),
  });

export const quoteRoutes = new Elysia({ name: "quotes" })
  .use(door)
  .post(
    "/quotes",
    ({ agent, body, once }) => once(() => createQuote(agent.id, body)),
    {
      agent: true,
      once: 200,
      body: t.Object({
        serviceId: t.String({ minLength: 1, maxLength: 64 }),
        currency: t.Optional(Currency),
        nights: units("nights"),
        guests: units("guests"),
        hours: units("hours"),
      }),
      ...answers(docs("Marketplace", "Price a service for the caller; valid 15 minutes", "agent", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", ...ONCE_ERRORS]), { 200: Quote }),
    },
  )
  .post(
    "/bookings",
    ({ agent, body, once }) => once(() => book(agent.id, body)),
    {
      agent: true,
      once: 201,
      body: t.Object({ quoteId: t.String({ minLength: 1, maxLength: 64 }), rail: t.Optional(t.String({ minLength: 1, maxLength: 20, description: `one of ${RAILS.join(", ")}` })) }),
      ...answers(docs("Marketplace", "Book a quote: pays the provider now", "agent", [...BOOK_ERRORS, ...ONCE_ERRORS]), { 201: Booking, 202: Held }),
    },
  )
  .get(
    "/bookings/mine",
    ({ agent, query, read }) => paged(query, (window) => read(listBookings(agent.id, { role: query.role }, window))),
    {
      agent: true,
      query: t.Object({ ...PageQuery.properties, role: t.Optional(t.Union([t.Literal("buyer"), t.Literal("provider")])) }),
      ...answers(docs("Marketplace", "Bookings the caller made or received, newest first", "agent"), { 200: BookingPage }),
    },
  )
  .get("/bookings/:id", ({ agent, params, read }) => read(getBooking(agent.id, params.id)), {
    agent: true,
    params: ServiceId,
    ...answers(docs("Marketplace", "A booking the caller made or received", "agent", ["NOT_FOUND"]), { 200: Booking }),
  });
