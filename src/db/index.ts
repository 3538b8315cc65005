// The database the service runs on: the embedded SQLite file (DATABASE_PATH), or PostgreSQL when
// DATABASE_URL is set. Features use only what this module exports (and query.ts's statements); which
// engine runs them is known here and in the two engines alone.
import type { Engine } from "./engine";
import { migrationMetas } from "./migrate";
import { pgMigrations, sqliteMigrations } from "./migrations.generated";
import { PostgresEngine } from "./postgres";
import type { Op } from "./query";
import { SqliteEngine } from "./sqlite";

export { actingAs, actingKey, afterCommit, all, FOR_UPDATE, forget, get, insertId, remember, revise, run, runLater, SKIP_LOCKED, together, type Op } from "./query";
export { cacheKeys } from "./cache";
export { countAdded, keptCount, type KeptList } from "./counts";
export { DatabaseInUse } from "./sqlite";
export { containing, narrowing, newestFirst, oldestFirst, pageRows, type ListSql, type PageWindow } from "./page";
export { columns, find, insert, insertNew, insertOnly, select, update, type Changes, type NewRow, type Row } from "./table";

let engine: Engine;

export type DatabaseSettings = { databasePath: string; databaseUrl?: string; dbSynchronous: "FULL" | "NORMAL"; dbPoolSize: number };

/** Opens the database and applies the embedded migrations. */
export async function openDatabase(settings: DatabaseSettings): Promise<void> {
  engine = settings.databaseUrl
    ? await PostgresEngine.open(settings.databaseUrl, settings.dbPoolSize, migrationMetas(pgMigrations))
    : new SqliteEngine(settings.databasePath, settings.dbSynchronous, migrationMetas(sqliteMigrations));
}

export const databaseKind = () => engine.kind;

/**
 * Runs a write op as one transaction and resolves after its commit is durable. The op is a generator
 * function (see query.ts): its statements cannot await anything else, so no network call can sit
 * inside a transaction. It may run more than once on PostgreSQL (a serialization conflict is retried).
 */
export function write<T>(op: () => Op<T>): Promise<T> {
  return engine.write(op);
}

/**
 * Runs a read on committed state. Its statements may each see a later moment on PostgreSQL; with
 * `snapshot` they all see the same one (an audit, a page and its total that must agree).
 */
export function read<T>(query: Op<T>, snapshot = false): Promise<T> {
  return engine.read(query, snapshot);
}

/** See Engine.exclusive: a lock across every instance on the database. */
export function exclusive<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<T | null> {
  return engine.exclusive(name, waitMs, fn);
}

/** Whether the database answers a query (for /health). */
export function databaseAnswers(): Promise<boolean> {
  return engine.ping();
}

export async function closeDatabase(): Promise<void> {
  await engine?.close();
}

/** The SQLite engine, for what only a file can do (backups); null on PostgreSQL. */
export function sqliteEngine(): SqliteEngine | null {
  return engine instanceof SqliteEngine ? engine : null;
}
