import { index, integer, json, primaryKey, table, text } from "../db/tables";
import { agents } from "../agents/schema";

/** The events an agent receives: each lands in its inbox (a system message of that type) and, with a webhook URL, in the outbox. */
export type EventName = "message.received" | "payment.received" | "negotiation.received" | "notification.financial";

/** "direct" (from another agent), or the event a system message is about. */
export type MessageType = "direct" | EventName;

/**
 * The inbox: direct messages (type "direct") and, as system messages (senderId null, type = event
 * name), every other event the agent receives, so the inbox is the fallback when webhooks fail.
 */
export const messages = table(
  "messages",
  {
    id: text().primaryKey(),
    senderId: text().references(() => agents.columns.id),
    recipientId: text().notNull().references(() => agents.columns.id),
    type: text<MessageType>().notNull(),
    subject: text().notNull(),
    body: text().notNull(),
    metadata: json<Record<string, unknown>>(),
    read: integer().notNull().default(0),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("messages_recipient_idx").on(t.recipientId, t.createdAt),
    // Pages of one type (`type=payment.received`): a seek to the type's newest, not a walk over every
    // message of the other types before it.
    index("messages_recipient_type_idx").on(t.recipientId, t.type, t.createdAt),
    // The unread ones, for `unreadOnly` pages: an inbox of a million read messages is not walked to
    // find the few unread.
    index("messages_unread_idx").on(t.recipientId, t.createdAt).where(`"messages"."read" = 0`),
    // Only direct messages have a sender; system messages (most rows) stay out of this index.
    index("messages_pair_idx").on(t.senderId, t.recipientId, t.createdAt).where(`"messages"."sender_id" IS NOT NULL`),
  ],
);

/**
 * How many messages of each type an agent has received, and how many of them are unread, changed in
 * the transaction that adds or reads one (src/inbox/store.ts): the inbox's totals and the unread
 * count add up a few rows instead of counting the whole inbox.
 */
export const inboxCounts = table(
  "inbox_counts",
  {
    agentId: text().notNull().references(() => agents.columns.id),
    type: text().notNull(),
    messages: integer().notNull(),
    unread: integer().notNull(),
  },
  (t) => [primaryKey(t.agentId, t.type)],
);
