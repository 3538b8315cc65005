// Backups of the SQLite file, online: `agentbank backup <file>` takes a consistent snapshot with
// VACUUM INTO on a read-only connection of its own (a read transaction: the running service keeps
// writing), and `agentbank restore <file>` puts one in place of the database while the service is
// stopped. PostgreSQL has its own tools (pg_dump, base backups and point-in-time recovery): see
// docs/operations.md.
import { Database } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export class BackupError extends Error {}

const TABLES_EXPECTED = ["agents", "accounts", "journal_entries", "postings", "__drizzle_migrations"];

/** Writes a consistent copy of the database at `databasePath` to `file` (which must not exist). */
export function backupSqlite(databasePath: string, file: string): { bytes: number } {
  if (!existsSync(databasePath)) throw new BackupError(`no database at ${databasePath}`);
  if (existsSync(file)) throw new BackupError(`${file} exists already: choose a new file`);
  const source = new Database(databasePath, { readonly: true });
  try {
    source.run("VACUUM INTO ?", [file]);
  } finally {
    source.close();
  }
  const bytes = statSync(file).size;
  recordBackup(databasePath, { at: Date.now(), file, bytes });
  return { bytes };
}

/**
 * Beside the database: when the last backup was taken (the metrics' agentbank_backup_last_success_timestamp_seconds).
 * A file, not a row: the backup runs in another process while the service is the database's only writer.
 */
const stampOf = (databasePath: string) => `${databasePath}.last-backup`;

function recordBackup(databasePath: string, backup: { at: number; file: string; bytes: number }): void {
  const staging = `${stampOf(databasePath)}.${process.pid}`;
  writeFileSync(staging, JSON.stringify(backup), { mode: 0o600 });
  renameSync(staging, stampOf(databasePath));
}

/** When the last backup of the database at `databasePath` was taken (ms), or null if none was recorded. */
export async function lastBackupAt(databasePath: string): Promise<number | null> {
  try {
    const { at } = (await Bun.file(stampOf(databasePath)).json()) as { at?: unknown };
    return typeof at === "number" ? at : null;
  } catch {
    return null;
  }
}

/** Checks that `file` is an intact agentbank database. */
function verify(file: string): void {
  const copy = new Database(file, { readonly: true });
  try {
    const integrity = copy.query("PRAGMA integrity_check").get() as { integrity_check: string };
    if (integrity.integrity_check !== "ok") throw new BackupError(`${file} is damaged: ${integrity.integrity_check}`);
    const tables = new Set((copy.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
    const missing = TABLES_EXPECTED.filter((table) => !tables.has(table));
    if (missing.length) throw new BackupError(`${file} is not an agentbank database (no ${missing.join(", ")})`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not a readable SQLite database: ${(error as Error).message}`);
  } finally {
    copy.close();
  }
}

/**
 * Replaces the database at `databasePath` with the backup `file`. The service must be stopped: a WAL
 * file with content means it is running (or crashed; start and stop it once to checkpoint).
 */
export function restoreSqlite(file: string, databasePath: string): void {
  if (!existsSync(file)) throw new BackupError(`no backup at ${file}`);
  verify(file);
  const wal = `${databasePath}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new BackupError(`${wal} is not empty: stop the service first (after a crash, start and stop it once)`);
  }
  mkdirSync(dirname(databasePath), { recursive: true, mode: 0o700 });
  // Copy beside the target, flush it, then swap it in with one rename: never half a database.
  const staging = join(dirname(databasePath), `.restore-${process.pid}.db`);
  copyFileSync(file, staging);
  const handle = openSync(staging, "r+");
  fsyncSync(handle);
  closeSync(handle);
  for (const stale of [wal, `${databasePath}-shm`]) rmSync(stale, { force: true });
  renameSync(staging, databasePath);
}

/** This executable (the compiled binary, or bun running main.ts), to run one of its commands. */
function self(): string[] {
  return Bun.main.startsWith("/$bunfs/") ? [process.execPath] : [process.execPath, Bun.main];
}

/**
 * A backup taken by a child process (`agentbank backup`), so that VACUUM INTO, which runs for as long as
 * the database is large, never blocks this process's event loop. Returns the file's bytes.
 */
export async function backupInChildProcess(databasePath: string, directory: string): Promise<Uint8Array> {
  const file = join(directory, `.backup-${process.pid}-${Date.now()}.db`);
  try {
    const child = Bun.spawn([...self(), "backup", file], { env: { ...process.env, DATABASE_PATH: databasePath, DATABASE_URL: "" }, stdout: "ignore", stderr: "pipe" });
    const [code, errors] = [await child.exited, await new Response(child.stderr).text()];
    if (code !== 0) throw new BackupError(`the backup failed: ${errors.trim()}`);
    return new Uint8Array(await Bun.file(file).arrayBuffer());
  } finally {
    rmSync(file, { force: true });
  }
}
