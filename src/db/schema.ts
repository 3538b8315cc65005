import { integer, primaryKey, table, text } from "./tables";

/** Small service-wide values that must survive a restart (e.g. the test clock's offset). */
export const settings = table("settings", {
  key: text().primaryKey(),
  value: text().notNull(),
});

/** The lists whose totals are kept (counts.ts): they grow with every payment or delivery of an agent. */
export type KeptList = "webhook_deliveries" | "x402_payments";

/**
 * How many items an agent's unbounded list holds, changed in the transaction that adds one
 * (src/db/counts.ts): a page's total is one row read, not a COUNT(*) over millions.
 */
export const listCounts = table(
  "list_counts",
  {
    agentId: text().notNull(),
    list: text<KeptList>().notNull(),
    items: integer().notNull(),
  },
  (t) => [primaryKey(t.agentId, t.list)],
);
