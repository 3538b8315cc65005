// Applies the migrations embedded in the binary (see embed-migrations.ts) with drizzle's migrator.
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { migrations } from "./migrations.generated";

export function runMigrations(db: BunSQLiteDatabase): void {
  const metas: MigrationMeta[] = migrations.map((migration) => ({
    sql: migration.sql.split("--> statement-breakpoint"),
    bps: migration.breakpoints,
    folderMillis: migration.when,
    hash: new Bun.CryptoHasher("sha256").update(migration.sql).digest("hex"),
  }));
  // drizzle's dialect exposes the same migrate step its file-based migrator uses.
  (db as unknown as { dialect: { migrate: Function }; session: unknown }).dialect.migrate(
    metas,
    (db as unknown as { session: unknown }).session,
    {},
  );
}
