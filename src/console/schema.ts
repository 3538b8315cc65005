import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/** A signed-in owner: the cookie holds a random token, stored here only as its SHA-256. */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: timestampMs("created_at").notNull(),
    expiresAt: timestampMs("expires_at").notNull(),
  },
  (table) => [index("console_sessions_agent_id_idx").on(table.agentId)],
);
