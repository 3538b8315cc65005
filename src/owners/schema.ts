import { index, integer, table, text } from "../db/tables";
import { agents } from "../agents/schema";

/** A signed-in owner (of the console, src/console): the cookie holds a random token, stored here only as its SHA-256. */
export const consoleSessions = table(
  "console_sessions",
  {
    tokenHash: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    csrfToken: text().notNull(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [index("console_sessions_agent_id_idx").on(t.agentId)],
);
