import { index, integer, json, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import type { EventName } from "../inbox/schema";

/** PENDING → SENDING (claimed by an instance) → DELIVERED | FAILED | SKIPPED (no webhook URL at delivery time). */
export type EventStatus = "PENDING" | "SENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
/** DELIVERED (2xx), FAILED (another status or an error), TIMEOUT, REFUSED (the URL is not allowed). */
export type DeliveryOutcome = "DELIVERED" | "FAILED" | "TIMEOUT" | "REFUSED";

/** The outbox: an event is written in the same transaction as its cause and delivered after commit. */
export const webhookEvents = table(
  "webhook_events",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    event: text<EventName>().notNull(),
    data: json<Record<string, unknown>>().notNull(),
    status: text<EventStatus>().notNull(),
    createdAt: integer().notNull(),
    /** When (wall-clock ms) an instance took it for delivery (status SENDING). */
    claimedAt: integer(),
  },
  (t) => [index("webhook_events_status_idx").on(t.status, t.createdAt)],
);

/** Every delivery attempt, as GET /agents/me/webhook/deliveries shows it. */
export const webhookDeliveries = table(
  "webhook_deliveries",
  {
    id: text().primaryKey(),
    eventId: text().notNull().references(() => webhookEvents.columns.id),
    agentId: text().notNull().references(() => agents.columns.id),
    event: text<EventName>().notNull(),
    url: text().notNull(),
    outcome: text<DeliveryOutcome>().notNull(),
    httpStatus: integer(),
    error: text(),
    durationMs: integer().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("webhook_deliveries_agent_idx").on(t.agentId, t.createdAt),
    // The operator's list of failed attempts across agents (GET /admin/webhooks/failing), newest first.
    index("webhook_deliveries_failed_idx").on(t.createdAt, t.id).where(`"webhook_deliveries"."outcome" <> 'DELIVERED'`),
  ],
);
