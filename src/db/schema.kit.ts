// What drizzle-kit reads (drizzle.config.ts), for either engine: every table declared in a feature's
// schema.ts (src/<feature>/schema.ts, see tables.ts), in the dialect of the engine it generates for.
// The tables are found, not listed, so no list has to be kept in step with the features.
//
// drizzle-kit takes the tables from the values a schema module exports, and an ES module's export
// names are fixed when it is written; its loader (tsx) runs this file as CommonJS, so the found
// tables are added to the CommonJS exports instead.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isTable } from "./tables";

const dialect = process.env.DRIZZLE_ENGINE === "pg" ? "pg" : "sqlite";
const src = join(__dirname, "..");

for (const feature of readdirSync(src).sort()) {
  const file = join(src, feature, "schema.ts");
  if (!existsSync(file)) continue;
  for (const [name, value] of Object.entries(require(file) as Record<string, unknown>)) {
    if (isTable(value)) module.exports[`${feature}_${name}`] = value[dialect];
  }
}
