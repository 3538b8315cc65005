import { table, text } from "./tables";

/** Small service-wide values that must survive a restart (e.g. the test clock's offset). */
export const settings = table("settings", {
  key: text().primaryKey(),
  value: text().notNull(),
});
