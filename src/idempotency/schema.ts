import { integer, json, primaryKey, table, text } from "../db/tables";

/**
 * The stored answer to a request made with an Idempotency-Key, kept 24 hours. A key is the acting
 * key's own (idempotency.ts, `actingKeyColumn`): the restricted key's id, `agent` for the agent's own
 * key, `any` for rows stored before keys were told apart (any key of the agent replays them).
 */
export const idempotencyKeys = table(
  "idempotency_keys",
  {
    agentId: text().notNull(),
    key: text().notNull(),
    actingKey: text().notNull(),
    requestHash: text().notNull(),
    status: integer().notNull(),
    body: json<unknown>().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey(t.agentId, t.key, t.actingKey)],
);
