import { t } from "elysia";
import { AGENT_ID } from "../agents/model";
import { ANY_JSON_TYPES, Uuid } from "../http/models";
import { Enum, Int, Model, Money, Nullable, Page, Timestamp } from "../http/responses";
import { X402ChannelPayment } from "./batch/model";

export const X402Payment = Model(
  {
    id: Uuid,
    agentId: t.String({ format: "uuid", description: "the paying agent" }),
    url: t.String({ description: "the resource that was paid for" }),
    method: t.String({ description: "the HTTP method used" }),
    scheme: Enum(["exact", "upto"], { description: "exact: the resource's price, paid whole; upto: at most amount, the resource charging what it used" }),
    amount: Money("in USDC: the price (exact) or the maximum authorized and held until the payment is decided (upto)"),
    settledAmount: Nullable(Money("in USDC"), { description: "what the payment charged, once SETTLED (upto: what the chain shows the permit moved, at most amount; the rest was released); null otherwise" }),
    currency: Enum(["USDC"]),
    payTo: t.String({ description: "the address the resource asked to be paid (0x...)" }),
    internalAgentId: Nullable(t.String({ format: "uuid" }), { description: "the agent whose deposit address payTo is, credited when the payment settles" }),
    network: t.String({ description: "the network named in the requirement (e.g. base-sepolia or eip155:84532)" }),
    x402Version: Int({ minimum: 1, maximum: 2, description: "the x402 protocol version the resource spoke" }),
    status: Enum(["PENDING", "SETTLED", "REFUNDED"], {
      description: "PENDING until the chain shows the authorization used (SETTLED) or expired unused (REFUNDED: the amount is returned); upto's maximum is held meanwhile",
    }),
    authorizationExpiresAt: Timestamp("the signed authorization's validBefore (upto: the permit's deadline, usable up to and including it): after it, an unused authorization can no longer be used"),
    transaction: Nullable(t.String(), { description: "the settlement transaction's hash, once known" }),
    resourceStatus: Nullable(Int(), { description: "the HTTP status the resource answered the paid request with; null if it did not answer" }),
    error: Nullable(t.String(), { description: "why the paid request did not deliver, or why the payment was refunded" }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    description: "A payment of an x402 resource, made from the caller's USDC through the service's treasury",
    examples: [
      {
        id: "0198f410-3a4b-7c5d-8e6f-7a8b9c0d1e2f",
        agentId: AGENT_ID,
        url: "https://api.example.com/weather/paris",
        method: "GET",
        scheme: "exact",
        amount: 0.01,
        settledAmount: 0.01,
        currency: "USDC",
        payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
        internalAgentId: null,
        network: "base-sepolia",
        x402Version: 2,
        status: "SETTLED",
        authorizationExpiresAt: "2025-06-01T14:02:00.000Z",
        transaction: "0x5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b",
        resourceStatus: 200,
        error: null,
        createdAt: "2025-06-01T14:00:00.000Z",
        updatedAt: "2025-06-01T14:00:03.000Z",
      },
    ],
  },
);

export const X402PaymentPage = Page(X402Payment, "A page of the caller's x402 payments, newest first");

export const X402Resource = Model(
  {
    status: Int({ description: "the resource's HTTP status" }),
    headers: t.Object({}, { additionalProperties: t.String(), description: "the resource's response headers (lower-case names)" }),
    body: t.Unknown({ anyOf: ANY_JSON_TYPES, description: "the resource's body: parsed JSON when its content type says JSON and it parses, the text otherwise" }),
  },
  { description: "What the resource answered" },
);

export const X402Result = Model(
  {
    payment: Nullable(X402Payment, { description: "the payment; null when the resource did not ask for one, or was paid over a batch-settlement channel" }),
    channel: t.Optional(X402ChannelPayment),
    resource: Nullable(X402Resource, { description: "the resource's answer; null when the paid request got no answer" }),
  },
  {
    description: "The resource's answer and, if it asked for one, the payment made for it",
    examples: [
      {
        payment: X402Payment.examples![0],
        resource: {
          status: 200,
          headers: { "content-type": "application/json", "payment-response": "eyJzdWNjZXNzIjp0cnVlfQ==" },
          body: { city: "Paris", temperatureC: 21 },
        },
      },
    ],
  },
);
