import { index, integer, table, text } from "../db/tables";
import { agents } from "../agents/schema";
import { owners } from "../accounts/schema";

/**
 * A signed-in owner (of the console, src/console): the cookie holds a random token, stored here only as
 * its SHA-256. Signed in with an owner key it is that one agent's; signed in by e-mail (ownerId) it is
 * every agent the owner claimed, agentId the one on screen.
 */
export const consoleSessions = table(
  "console_sessions",
  {
    tokenHash: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    ownerId: text().references(() => owners.columns.id),
    csrfToken: text().notNull(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [index("console_sessions_agent_id_idx").on(t.agentId)],
);
