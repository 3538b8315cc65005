import { primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { int, timestampMs } from "../db/columns";

/** The stored answer to a request made with an Idempotency-Key, kept 24 hours. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    agentId: text("agent_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: int("status").notNull(),
    body: text("body").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.key] })],
);
