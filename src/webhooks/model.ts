import { t } from "elysia";
import { AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { Enum, Int, Model, Nullable, Page, Timestamp } from "../http/responses";

export const Webhook = Model(
  {
    agentId: Uuid,
    webhookUrl: Nullable(t.String({ format: "uri" }), { description: "null: deliveries stopped" }),
    secret: t.Optional(
      t.String({ description: "the Standard Webhooks signing secret (whsec_...), present when a URL is set; kept across URL changes" }),
    ),
  },
  {
    description: "The caller's webhook settings",
    examples: [{ agentId: AGENT_ID, webhookUrl: "https://agent.example.com/hooks/agentbank", secret: "whsec_MfKQ9r8GbYcNcY6GvR8eN1UvPxPZ5i4C" }],
  },
);

export const WebhookDelivery = Model(
  {
    id: Uuid,
    eventId: t.String({ description: "the event's id (evt_...), also sent as the webhook-id header" }),
    event: t.String({ description: "the event name, e.g. payment.received" }),
    url: t.String({ description: "where it was sent" }),
    outcome: Enum(["DELIVERED", "FAILED", "TIMEOUT", "REFUSED"], {
      description: "DELIVERED (2xx), FAILED (other status or error), TIMEOUT, REFUSED (the URL is not allowed)",
    }),
    httpStatus: Nullable(Int(), { description: "the receiver's status; null when it did not answer" }),
    error: Nullable(t.String()),
    durationMs: Int({ minimum: 0 }),
    createdAt: Timestamp(),
  },
  {
    description: "One attempt to deliver an event to the caller's webhook",
    examples: [
      {
        id: "0198f3c4-2d3e-7f4a-8b5c-6d7e8f9a0b1c",
        eventId: "evt_0198f3c42d3e7f4a8b5c6d7e8f9a0b1c",
        event: "payment.received",
        url: "https://agent.example.com/hooks/agentbank",
        outcome: "DELIVERED",
        httpStatus: 200,
        error: null,
        durationMs: 84,
        createdAt: "2025-06-01T12:00:01.000Z",
      },
    ],
  },
);

export const WebhookDeliveryPage = Page(WebhookDelivery, "A page of webhook delivery attempts, newest first");

export const Resent = Model(
  {
    eventId: t.String({ description: "the event sent again (the same webhook-id: receivers dedupe on it)" }),
    status: Enum(["PENDING"], { description: "queued: the attempt appears in the deliveries when it is made" }),
  },
  { description: "A failed delivery's event, queued to be sent again", examples: [{ eventId: "evt_0198f3c42d3e7f4a8b5c6d7e8f9a0b1c", status: "PENDING" }] },
);

export const FailedDelivery = Model(
  { agentId: Uuid, ...WebhookDelivery.properties },
  {
    description: "A delivery attempt that did not reach the agent's webhook",
    examples: [
      {
        agentId: AGENT_ID,
        id: "0198f3c4-2d3e-7f4a-8b5c-6d7e8f9a0b1d",
        eventId: "evt_0198f3c42d3e7f4a8b5c6d7e8f9a0b1d",
        event: "payment.received",
        url: "https://agent.example.com/hooks/agentbank",
        outcome: "FAILED",
        httpStatus: 502,
        error: "HTTP 502",
        durationMs: 131,
        createdAt: "2025-06-01T12:00:01.000Z",
      },
    ],
  },
);

export const FailedDeliveryPage = Page(FailedDelivery, "A page of failed webhook delivery attempts across agents, newest first");
