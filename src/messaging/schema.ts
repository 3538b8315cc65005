import { sql } from "drizzle-orm";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, json, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/**
 * The inbox: direct messages (type "direct") and, as system messages (senderId null, type = event
 * name), every other event the agent receives, so the inbox is the fallback when webhooks fail.
 */
export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    senderId: text("sender_id").references(() => agents.id),
    recipientId: text("recipient_id").notNull().references(() => agents.id),
    type: text("type").notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    metadata: json<Record<string, unknown>>()("metadata"),
    read: int("read").notNull().default(0),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [
    index("messages_recipient_idx").on(table.recipientId, table.createdAt),
    // Only direct messages have a sender; system messages (most rows) stay out of this index.
    index("messages_pair_idx").on(table.senderId, table.recipientId, table.createdAt).where(sql`${table.senderId} IS NOT NULL`),
  ],
);
