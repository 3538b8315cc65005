import { index, integer, table, text } from "../db/tables";
import { agents } from "../agents/schema";

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
    type: text().notNull(),
    subject: text().notNull(),
    body: text().notNull(),
    metadata: text(),
    read: integer().notNull().default(0),
    createdAt: integer().notNull(),
  },
  (t) => [
    index("messages_recipient_idx").on(t.recipientId, t.createdAt),
    // Only direct messages have a sender; system messages (most rows) stay out of this index.
    index("messages_pair_idx").on(t.senderId, t.recipientId, t.createdAt).where(`"messages"."sender_id" IS NOT NULL`),
  ],
);
