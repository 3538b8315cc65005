// The embedded migrations (migrations.generated.ts) applied by drizzle's migrator, which keeps its own
// record of what ran (__drizzle_migrations: each migration's hash and time).
import type { MigrationMeta } from "drizzle-orm/migrator";

/** The embedded migrations, as drizzle's migrator reads a migrations folder. */
export const migrationMetas = (migrations: { sql: string; breakpoints: boolean; when: number }[]): MigrationMeta[] =>
  migrations.map((migration) => ({
    sql: migration.sql.split("--> statement-breakpoint"),
    bps: migration.breakpoints,
    folderMillis: migration.when,
    hash: new Bun.CryptoHasher("sha256").update(migration.sql).digest("hex"),
  }));

type Migrator = { dialect: { migrate(migrations: MigrationMeta[], session: unknown, config: object): void | Promise<void> }; session: unknown };

/**
 * Applies to `orm` (a drizzle database of either driver) the migrations it has not recorded yet.
 * drizzle-orm's public migrate() (drizzle-orm/bun-sqlite/migrator, drizzle-orm/bun-sql/migrator) only
 * reads a migrations folder, and the compiled executable carries its migrations embedded, with no
 * folder; so this makes the call that migrate() makes, on the dialect and session its typings keep
 * private. The one place that reaches into drizzle: check it when drizzle-orm is upgraded.
 */
export function applyMigrations(orm: object, migrations: MigrationMeta[]): void | Promise<void> {
  const { dialect, session } = orm as unknown as Migrator;
  return dialect.migrate(migrations, session, {});
}
