import { index, integer, json, table, text, uniqueIndex } from "../db/tables";

/**
 * A named operator's key (pa_…), made by an operator at POST /admin/operators: stored as its SHA-256,
 * read at every request it comes with (operators/keys.ts), so a revoked or rotated key is refused at
 * once by every instance. ADMIN_API_KEY, the bootstrap key, has no row: its operator is `admin`.
 */
export const operatorKeys = table(
  "operator_keys",
  {
    id: text().primaryKey(),
    /** Who holds it, as the audit log names them; unique among keys in force. */
    name: text().notNull(),
    keyHash: text().notNull().unique(),
    createdAt: integer().notNull(),
    /** When a request last came with it, to the minute: not a write per request. */
    lastUsedAt: integer(),
    revokedAt: integer(),
  },
  (t) => [uniqueIndex("operator_keys_name_in_force_idx").on(t.name).where(`"operator_keys"."revoked_at" IS NULL`)],
);

/**
 * What operators did, one row per action, written in the action's own transaction (door/operator.ts).
 * Append-only: nothing in src/ updates or deletes a row (test/operators.test.ts reads the source).
 */
export const auditLog = table(
  "audit_log",
  {
    id: text().primaryKey(),
    /** The operator's key row; null for the bootstrap key (`admin`) and the service itself (`system`). */
    operatorId: text(),
    /** The operator's name when it acted (a name may be given again once its key is revoked). */
    operator: text().notNull(),
    action: text().notNull(),
    /** What it acted on (an agent's id, an operator key's, a bet's…); null when nothing in particular. */
    target: text(),
    /** What it asked for: the request's body as validated, or what the service saw at start. */
    details: json<Record<string, unknown>>(),
    /** The request's Request-Id; null for what the service records by itself. */
    requestId: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index("audit_log_created_idx").on(t.createdAt, t.id), index("audit_log_operator_idx").on(t.operator, t.createdAt)],
);

/**
 * A session of the operator console (/operator): its cookie's token as a SHA-256, bound to the key it
 * was opened with (that key's SHA-256, as operator_keys holds it): every request reads the key's row
 * again, so a revoked or rotated key ends its sessions at the next request (operator-console/sessions.ts).
 */
export const operatorSessions = table(
  "operator_sessions",
  {
    tokenHash: text().primaryKey(),
    keyHash: text().notNull(),
    csrfToken: text().notNull(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [index("operator_sessions_key_idx").on(t.keyHash)],
);
