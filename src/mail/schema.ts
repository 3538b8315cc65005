import { index, integer, table, text, uniqueIndex } from "../db/tables";

/** QUEUED (waiting for its next attempt, or being sent) → SENT | FAILED (given up on: kept for the operator). */
export type MailStatus = "QUEUED" | "SENT" | "FAILED";

/**
 * The mail outbox: a message is written in the same write op as what causes it (so it exists if and
 * only if that op committed) and sent after the commit by the dispatcher. (event, recipient) is unique:
 * queueing the same one again does nothing.
 */
export const mailOutbox = table(
  "mail_outbox",
  {
    id: text().primaryKey(),
    /** What caused it, as the feature names it (e.g. `owner.claim:<owner id>`). */
    event: text().notNull(),
    recipient: text().notNull(),
    subject: text().notNull(),
    bodyText: text().notNull(),
    bodyHtml: text(),
    /** The Message-ID header, fixed at queueing from (event, recipient): a resend carries the same one. */
    messageId: text().notNull(),
    status: text<MailStatus>().notNull(),
    createdAt: integer().notNull(),
    /** Attempts started (counted when claimed, so one cut short by a crash counts too). */
    attempts: integer().notNull(),
    /** Service clock: when the next attempt may start (the back-off). */
    nextAttemptAt: integer().notNull(),
    /** Wall clock: when an instance took it to send; a claim older than a minute is taken again. */
    claimedAt: integer(),
    sentAt: integer(),
    /** Where it went: `smtp`, or the name of its file in the outbox folder. */
    deliveredTo: text(),
    /** Why the last attempt failed. */
    error: text(),
  },
  (t) => [
    uniqueIndex("mail_outbox_event_recipient_idx").on(t.event, t.recipient),
    index("mail_outbox_due_idx").on(t.status, t.nextAttemptAt),
    index("mail_outbox_created_idx").on(t.createdAt),
    index("mail_outbox_recipient_idx").on(t.recipient, t.createdAt),
  ],
);
