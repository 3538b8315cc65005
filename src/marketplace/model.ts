import { t } from "elysia";
import type { TUnsafe } from "@sinclair/typebox";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { CurrencyCode, Enum, Int, Model, Money, Nullable, Page, Timestamp } from "../http/responses";
import { BOOKING_STATUSES, PRICING_UNITS, RAILS } from "./schema";

const PricingUnit = Enum(PRICING_UNITS, {
  description: "what the price is per: FIXED, PER_HOUR (hours), PER_NIGHT (nights), PER_GUEST (guests), PER_GUEST_NIGHT (guests × nights)",
});
const Agent = (description: string) => t.String({ format: "uuid", description });
/** The terms a quote fixes and its booking carries on (termsView in quotes.ts); each says what its parties and amount are to it. */
const Terms = (about: { provider: string; agent: string; amount: string }) => ({
  serviceId: t.String({ description: "svc_..." }),
  providerId: Agent(about.provider),
  agentId: Agent(about.agent),
  amount: Money(about.amount),
  currency: CurrencyCode,
});

export const Service = Model(
  {
    id: t.String({ description: "svc_..." }),
    providerId: Agent("the agent that provides it"),
    name: t.String(),
    description: t.String(),
    category: t.String(),
    price: Money("per pricing unit, in major units"),
    currency: CurrencyCode,
    pricingUnit: PricingUnit,
    x402Url: Nullable(t.String(), { description: "where the service is also sold over x402 (e.g. a seller endpoint that agentbank's facilitator settles); null when it is not" }),
    active: t.Boolean({ description: "false once withdrawn: gone from discover, no new quotes" }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    description: "A service an agent lists in the marketplace",
    examples: [
      {
        id: "svc_b7Hq2LmN4pXr8sTv",
        providerId: OTHER_AGENT_ID,
        name: "English → French translation",
        description: "Human-quality translation, delivered within 24 h",
        category: "translation",
        price: 12.5,
        currency: "USDC",
        pricingUnit: "PER_HOUR",
        x402Url: "https://translator.example.com/translate",
        active: true,
        createdAt: "2025-05-20T08:00:00.000Z",
        updatedAt: "2025-05-20T08:00:00.000Z",
      },
    ],
  },
);

export const ServicePage = Page(Service, "A page of active listings, newest first");

const Units = Model(
  {
    nights: t.Optional(Int({ minimum: 1 })),
    guests: t.Optional(Int({ minimum: 1 })),
    hours: t.Optional(Int({ minimum: 1 })),
  },
  { description: "the units the pricing unit counts, as asked" },
);

export const Quote = Model(
  {
    id: t.String({ description: "qt_..." }),
    ...Terms({ provider: "the service's provider, who is paid on booking", agent: "the agent the quote is for (the only one who may book it)", amount: "the total price, in major units" }),
    // Stored as a JSON column typed Record<string, unknown>: its shape is documented and checked at
    // run time, while TypeScript sees the column's type.
    breakdown: Model(
      {
        unitPrice: Money("the listing's price"),
        pricingUnit: PricingUnit,
        units: Units,
        quantity: Int({ minimum: 1, description: "the product of the units (1 for FIXED)" }),
        amount: Money("unitPrice × quantity"),
        currency: CurrencyCode,
        formula: t.String({ description: "the computation in words" }),
      },
      { description: "How the amount was computed" },
    ) as unknown as TUnsafe<Record<string, unknown>>,
    expiresAt: Timestamp("the quote can be booked until then (15 minutes)"),
    createdAt: Timestamp(),
  },
  {
    description: "A price for a service, for one agent, valid 15 minutes",
    examples: [
      {
        id: "qt_Fh3Kp9Lw2Qz7Xn4R",
        serviceId: "svc_b7Hq2LmN4pXr8sTv",
        providerId: OTHER_AGENT_ID,
        agentId: AGENT_ID,
        amount: 37.5,
        currency: "USDC",
        breakdown: {
          unitPrice: 12.5,
          pricingUnit: "PER_HOUR",
          units: { hours: 3 },
          quantity: 3,
          amount: 37.5,
          currency: "USDC",
          formula: "12.5 USDC × 3 hours = 37.5 USDC",
        },
        expiresAt: "2025-06-01T12:15:00.000Z",
        createdAt: "2025-06-01T12:00:00.000Z",
      },
    ],
  },
);

export const Booking = Model(
  {
    id: t.String({ description: "bk_..." }),
    quoteId: t.String({ description: "qt_..." }),
    ...Terms({ provider: "who was paid", agent: "who booked and paid", amount: "paid to the provider, in major units" }),
    rail: Enum(RAILS, { description: "how it was paid: INTERNAL (a ledger payment)" }),
    status: Enum(BOOKING_STATUSES, { description: "a booking is confirmed when made: it exists exactly when its payment does" }),
    paymentId: t.String({ format: "uuid", description: "the payment (kind BOOKING) to the provider" }),
    createdAt: Timestamp(),
  },
  {
    description: "A booked quote, paid to the provider",
    examples: [
      {
        id: "bk_Tn6Vb1Xc8Md3Ls5K",
        quoteId: "qt_Fh3Kp9Lw2Qz7Xn4R",
        serviceId: "svc_b7Hq2LmN4pXr8sTv",
        providerId: OTHER_AGENT_ID,
        agentId: AGENT_ID,
        amount: 37.5,
        currency: "USDC",
        rail: "INTERNAL",
        status: "CONFIRMED",
        paymentId: "0198f3a2-5c1e-7a4b-9d2e-3f4a5b6c7d8e",
        createdAt: "2025-06-01T12:03:00.000Z",
      },
    ],
  },
);

export const BookingPage = Page(Booking, "A page of bookings, newest first");
