import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small service-wide values that must survive a restart (e.g. the test clock's offset). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
