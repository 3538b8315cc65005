// The SQLite engine: one file in WAL mode, one connection, one process (the only writer).
//
// Group commit: write ops that arrive in the same event-loop turn share one transaction and one fsync.
// Each op runs in its own savepoint, synchronously (its statements are yielded and run on the spot),
// so a failing op rolls back only itself and nothing can interleave with it.
//
// Durability without stalling: with DB_SYNCHRONOUS=FULL the COMMIT writes the WAL without waiting for
// the disk, and an fdatasync of the WAL then runs on a thread of the pool while the next group already
// executes; the callers of a group are answered (and its after-commit callbacks run) only once an
// fdatasync that began after its COMMIT has returned, so a 2xx still means "on disk". Reads run
// synchronously on the same connection, between groups, once everything committed is on disk: they
// never see what a power cut could still take back. Checkpoints run on a worker thread
// (checkpointer.ts), not here.
import { Database, type Statement as Prepared } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, fdatasync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { exitWith, logLine } from "../log";
import { Cache } from "./cache";
import { LocalLocks } from "./local-locks";
import { applyMigrations } from "./migrate";
import { runAfterCommit, stepSync, type Op, type Statement } from "./query";
import { databaseStats, groupCommitted } from "./stats";
import type { Engine } from "./engine";

type Pending = { op: () => Op<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

const MAX_GROUP = 512;
/** A bound on the prepared statements kept (texts with a variable IN list make new ones). */
const MAX_PREPARED = 2_000;

/**
 * The checkpointer's module: this file's sibling when run from source. In the compiled executable every
 * bundled module's URL is the executable's own (file:///$bunfs/root/agentbank) and the worker, a second
 * entrypoint of the build (package.json), sits at its path under src/.
 */
const CHECKPOINTER = new URL(import.meta.url.startsWith("file:///$bunfs/") ? "./db/checkpointer.ts" : "./checkpointer.ts", import.meta.url).href;

/**
 * The database holds key hashes and webhook secrets: owner-only (0600). SQLite gives the -wal and -shm
 * files the main file's mode; files from older versions are tightened too.
 */
function restrictFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/**
 * Keeps every other process off the database for as long as this one runs: an exclusive lock on a
 * small file beside it (released by the system if the process dies). The cache (cache.ts) relies on
 * this process being the only writer.
 */
export class DatabaseInUse extends Error {}
function holdWriterLock(path: string): Database | null {
  if (path === ":memory:") return null;
  const lock = new Database(`${path}.lock`, { create: true });
  chmodSync(`${path}.lock`, 0o600);
  lock.exec("PRAGMA locking_mode = EXCLUSIVE");
  try {
    lock.exec(`BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder; INSERT INTO holder VALUES (${process.pid}); COMMIT`);
  } catch {
    lock.close();
    throw new DatabaseInUse(`another agentbank process has ${path} open: stop it first (one process per SQLite database)`);
  }
  return lock;
}

export class SqliteEngine implements Engine {
  readonly kind = "sqlite" as const;
  readonly connection: Database;
  /** The only writer: rows that change may be cached here (see cache.ts). */
  readonly cache = new Cache(true);
  private readonly lock: Database | null;
  private queue: Pending[] = [];
  private scheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  /** One process on the file: a named lock is this process's queue for it. */
  private readonly locks = new LocalLocks();
  /**
   * Every statement text run, prepared once. Not bun:sqlite's query(): its cache keeps 20 statements
   * (the service runs more; one pushed out is compiled again) and moves the one it finds to the end of
   * its Map on every call.
   */
  private readonly prepared = new Map<string, Prepared>();
  private readonly savepoint: Prepared;
  private readonly release: Prepared;
  private readonly rollbackTo: Prepared;
  /** The WAL's descriptor, for the fdatasync that makes each group durable (FULL); null otherwise. */
  private readonly wal: number | null = null;
  private readonly checkpointer: Worker | null = null;
  private committed = 0;
  private durable = 0;
  private syncing = false;
  private waiting: { upTo: number; done: () => void }[] = [];

  constructor(path: string, synchronous: "FULL" | "NORMAL", migrations: MigrationMeta[]) {
    if (path !== ":memory:") restrictFiles(path);
    this.lock = holdWriterLock(path);
    this.connection = new Database(path, { create: true, safeIntegers: true, strict: true });
    const db = this.connection;
    db.exec("PRAGMA journal_mode = WAL");
    // FULL's fsync at COMMIT would stop this thread for the length of a disk flush: it is done after the
    // COMMIT, on another thread, before anyone is answered (see durableAfter).
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA cache_size = -65536");
    // Each write op runs in a savepoint; its sub-journal in a temp file doubled the cost of every op.
    db.exec("PRAGMA temp_store = MEMORY");
    applyMigrations(drizzle({ client: db }), migrations);
    this.savepoint = db.prepare("SAVEPOINT op");
    this.release = db.prepare("RELEASE op");
    this.rollbackTo = db.prepare("ROLLBACK TO op");
    if (path !== ":memory:") {
      db.exec(`PRAGMA wal_autocheckpoint = 4000`);
      this.checkpointer = new Worker(CHECKPOINTER);
      // Without it the writer's own automatic checkpoint still keeps the WAL bounded: slower, not wrong.
      this.checkpointer.onerror = (event) => {
        logLine({ level: "warn", msg: "the WAL checkpointer stopped; the writer checkpoints alone", error: event.message });
      };
      this.checkpointer.postMessage({ path });
      this.checkpointer.unref();
      // The migrations above wrote, so the WAL exists; it lives as long as this connection.
      if (synchronous === "FULL") this.wal = openSync(`${path}-wal`, "r");
    }
  }

  /** Runs `done` once everything committed up to commit number `upTo` is on disk. */
  private durableAfter(upTo: number, done: () => void): void {
    if (this.wal === null || this.durable >= upTo) return done();
    this.waiting.push({ upTo, done });
    this.sync();
  }

  private sync(): void {
    if (this.syncing || this.wal === null) return;
    this.syncing = true;
    const target = this.committed;
    fdatasync(this.wal, (error) => {
      this.syncing = false;
      if (error) {
        // What was committed may not be on disk, and nobody was told it is: stop rather than answer.
        exitWith(1, "fdatasync of the WAL failed", { error: String(error) });
      }
      this.durable = target;
      const ready = this.waiting.filter((waiter) => waiter.upTo <= target);
      this.waiting = this.waiting.filter((waiter) => waiter.upTo > target);
      for (const waiter of ready) waiter.done();
      if (this.waiting.length > 0) this.sync();
    });
  }

  private statement(sql: string): Prepared {
    let prepared = this.prepared.get(sql);
    if (prepared === undefined) {
      // The hot statements are prepared again at their next use.
      if (this.prepared.size >= MAX_PREPARED) this.clearPrepared();
      prepared = this.connection.prepare(sql);
      this.prepared.set(sql, prepared);
    }
    return prepared;
  }

  private clearPrepared(): void {
    for (const prepared of this.prepared.values()) prepared.finalize();
    this.prepared.clear();
  }

  private readonly execute = (statement: Statement): unknown => {
    const prepared = this.statement(statement.sql);
    const params = statement.params as never[];
    if (statement.mode === "all") return prepared.all(...params);
    if (statement.mode === "get") return prepared.get(...params);
    const result = prepared.run(...params);
    return statement.mode === "insertId" ? result.lastInsertRowid : result.changes;
  };

  write<T>(op: () => Op<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        setImmediate(() => this.flush());
      }
    });
  }

  /** Every read is one snapshot here: it runs synchronously, between groups, on durable state. */
  read<T>(query: Op<T>): Promise<T> {
    const run = () => stepSync(query, this.execute, [], this.cache.readView());
    if (this.wal === null || this.durable >= this.committed) {
      try {
        return Promise.resolve(run());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.durableAfter(this.committed, () => {
        try {
          resolve(run());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  private flush(): void {
    const group = this.queue.splice(0, MAX_GROUP);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const callbacks: (() => void)[] = [];
    const cached = this.cache.view();
    const began = performance.now();
    try {
      this.connection.exec("BEGIN IMMEDIATE");
      for (const pending of group) {
        this.savepoint.run();
        const after: (() => void)[] = [];
        const staged = this.cache.view(cached);
        try {
          const value = stepSync(pending.op(), this.execute, after, staged);
          this.release.run();
          staged.commit();
          callbacks.push(...after);
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.rollbackTo.run();
          this.release.run();
          outcomes.push({ ok: false, value: error });
        }
      }
      this.connection.exec("COMMIT");
      cached.commit();
    } catch (error) {
      if (this.connection.inTransaction) this.connection.exec("ROLLBACK");
      for (const pending of group) pending.reject(error);
      this.next();
      return;
    }
    this.committed += 1;
    databaseStats.committed += outcomes.filter((outcome) => outcome.ok).length;
    groupCommitted(group.length, (performance.now() - began) / 1000);
    this.durableAfter(this.committed, () => {
      group.forEach((pending, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) pending.resolve(outcome.value);
        else pending.reject(outcome.value);
      });
      runAfterCommit(callbacks);
    });
    this.next();
  }

  private next(): void {
    if (this.queue.length > 0) {
      setImmediate(() => this.flush());
    } else {
      this.scheduled = false;
      this.markIdle();
    }
  }

  /** One process: an in-process lock is the whole cluster's. */
  exclusive<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<T | null> {
    return this.locks.exclusive(name, waitMs, fn);
  }

  async ping(): Promise<boolean> {
    try {
      this.connection.query("SELECT 1").get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.scheduled) await this.idle;
    await new Promise<void>((done) => this.durableAfter(this.committed, done));
    this.checkpointer?.terminate();
    if (this.wal !== null) closeSync(this.wal);
    this.clearPrepared();
    // Everything back in the file and the WAL emptied: a stopped database is one file (backups, restore).
    if (this.checkpointer) this.connection.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    this.connection.close();
    this.lock?.close();
  }
}
