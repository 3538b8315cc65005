import { integer, primaryKey, table, text } from "../db/tables";

/** The stored answer to a request made with an Idempotency-Key, kept 24 hours. */
export const idempotencyKeys = table(
  "idempotency_keys",
  {
    agentId: text().notNull(),
    key: text().notNull(),
    requestHash: text().notNull(),
    status: integer().notNull(),
    body: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey(t.agentId, t.key)],
);
