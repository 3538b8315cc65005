import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, json, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * The outbox: an event is written in the same transaction as its cause and delivered after commit.
 * status: PENDING → DELIVERED | FAILED | SKIPPED (no webhook URL at delivery time).
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    event: text("event").notNull(),
    data: json<Record<string, unknown>>()("data").notNull(),
    status: text("status").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("webhook_events_status_idx").on(table.status, table.createdAt)],
);

/** Every delivery attempt, as GET /agents/me/webhook/deliveries shows it. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id").notNull().references(() => webhookEvents.id),
    agentId: text("agent_id").notNull().references(() => agents.id),
    event: text("event").notNull(),
    url: text("url").notNull(),
    outcome: text("outcome").notNull(),
    httpStatus: int("http_status"),
    error: text("error"),
    durationMs: int("duration_ms").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [index("webhook_deliveries_agent_idx").on(table.agentId, table.createdAt)],
);
