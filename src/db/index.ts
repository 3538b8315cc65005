// The database: one SQLite file in WAL mode, opened once per process.
// Reads use `db` directly. Every write goes through `write()`, which serializes it and commits it in a
// group with the other writes that arrived in the same turn of the event loop (one fsync per group).
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { runMigrations } from "./migrate";
import { GroupCommitWriter } from "./writer";

export let sqlite: Database;
export let db: BunSQLiteDatabase;
let writer: GroupCommitWriter;

/**
 * The database holds key hashes and webhook secrets: owner-only (0600). SQLite gives the -wal and -shm
 * files the main file's mode; files from older versions are tightened too.
 */
function restrictFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

export function openDatabase(path: string, synchronous: "FULL" | "NORMAL"): void {
  if (path !== ":memory:") restrictFiles(path);
  sqlite = new Database(path, { create: true, safeIntegers: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec(`PRAGMA synchronous = ${synchronous}`);
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA cache_size = -65536");
  // Each write op runs in a savepoint; its sub-journal in a temp file doubled the cost of every op.
  sqlite.exec("PRAGMA temp_store = MEMORY");
  db = drizzle({ client: sqlite });
  runMigrations(db);
  writer = new GroupCommitWriter(sqlite);
}

export async function closeDatabase(): Promise<void> {
  await writer?.drain();
  sqlite?.close();
}

/**
 * Runs `op` inside the serialized write transaction and resolves after its commit is on disk.
 * `op` must be synchronous: bun:sqlite transactions cannot span an await, and no network call
 * belongs inside one (queue it with onCommit or the outbox instead).
 */
export function write<T>(op: () => T extends Promise<unknown> ? never : T): Promise<T> {
  return writer.submit(op);
}

/** Inside a write op: run `fn` after the group commits (skipped if this op rolls back). */
export function onCommit(fn: () => void): void {
  writer.onCommit(fn);
}


/** Whether the database answers a query (for /health). */
export function databaseAnswers(): boolean {
  try {
    sqlite.query("SELECT 1").get();
    return true;
  } catch {
    return false;
  }
}
