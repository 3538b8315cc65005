import { index, integer, json, primaryKey, table, text, uniqueIndex } from "../db/tables";
import { owners } from "../accounts/schema";
import { agents } from "../agents/schema";

/**
 * What the owner's receiver gets: `standard` (Standard Webhooks JSON: type, timestamp, data), or the plain
 * JSON the incoming webhooks of Slack (`text`), Discord (`content`) or ntfy (its JSON publishing) accept.
 */
export type OwnerWebhookFormat = "standard" | "slack" | "discord" | "ntfy";

/** QUEUED (waiting for its next attempt, or being sent) → DELIVERED | FAILED (given up after 24 h) | SKIPPED (no webhook by then). */
export type OwnerNoticeStatus = "QUEUED" | "DELIVERED" | "FAILED" | "SKIPPED";

/** An owner account's webhook: one per owner. The secret (whsec_…) is shown once, when made. */
export const ownerWebhooks = table("owner_webhooks", {
  ownerId: text().primaryKey().references(() => owners.columns.id),
  url: text().notNull(),
  format: text<OwnerWebhookFormat>().notNull(),
  secret: text().notNull(),
  createdAt: integer().notNull(),
  updatedAt: integer().notNull(),
});

/** The owner's choice of channels for one kind of notice; no row: e-mail on, the webhook on (once there is one). */
export const ownerNoticePreferences = table(
  "owner_notice_preferences",
  {
    ownerId: text().notNull().references(() => owners.columns.id),
    /** A kind of notice (kinds.ts). */
    kind: text().notNull(),
    /** 1 on, 0 off. */
    email: integer().notNull(),
    webhook: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [primaryKey(t.ownerId, t.kind)],
);

/**
 * The owner webhook's outbox: a notice is written in the same transaction as its cause and sent after
 * the commit, retried with back-off for 24 h. (owner, event) is unique: the same notice queued again
 * does nothing. Its id is the webhook-id of every attempt.
 */
export const ownerWebhookNotices = table(
  "owner_webhook_notices",
  {
    id: text().primaryKey(),
    ownerId: text().notNull().references(() => owners.columns.id),
    /** The notice's event, unique per owner. */
    event: text().notNull(),
    kind: text().notNull(),
    agentId: text().notNull().references(() => agents.columns.id),
    agentName: text().notNull(),
    subject: text().notNull(),
    message: text().notNull(),
    link: text(),
    /** The notice's facts, JSON. */
    data: json<Record<string, unknown>>().notNull(),
    status: text<OwnerNoticeStatus>().notNull(),
    createdAt: integer().notNull(),
    /** Attempts started (counted when claimed). */
    attempts: integer().notNull(),
    /** Service clock: when the next attempt may start (the back-off). */
    nextAttemptAt: integer().notNull(),
    /** Wall clock: when an instance took it to send; a claim older than a minute is taken again. */
    claimedAt: integer(),
    deliveredAt: integer(),
    /** The last attempt's HTTP status, and why it failed. */
    httpStatus: integer(),
    error: text(),
  },
  (t) => [
    uniqueIndex("owner_webhook_notices_event_idx").on(t.ownerId, t.event),
    index("owner_webhook_notices_due_idx").on(t.status, t.nextAttemptAt),
    index("owner_webhook_notices_owner_idx").on(t.ownerId, t.createdAt),
  ],
);
