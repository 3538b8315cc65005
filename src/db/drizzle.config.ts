// drizzle-kit, once per engine: `bun run db:generate` writes migrations/sqlite and migrations/pg from
// the same table declarations (src/db/schema.kit.ts finds them), then embeds both (embed-migrations.ts).
import { defineConfig } from "drizzle-kit";

const engine = process.env.DRIZZLE_ENGINE === "pg" ? "pg" : "sqlite";

export default defineConfig({
  dialect: engine === "pg" ? "postgresql" : "sqlite",
  schema: "./src/db/schema.kit.ts",
  out: `./migrations/${engine}`,
});
