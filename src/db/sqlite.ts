// The SQLite engine: one file in WAL mode, one connection, one process (the only writer).
//
// Group commit: write ops that arrive in the same event-loop turn share one transaction and one fsync.
// Each op runs in its own savepoint, synchronously (its statements are yielded and run on the spot),
// so a failing op rolls back only itself and nothing can interleave with it; every caller is answered
// only after the shared COMMIT returned, so a 2xx always means "on disk". Reads run synchronously on
// the same connection, between groups: they only ever see committed state.
import { Database, type Statement as Prepared } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { runAfterCommit, stepSync, type Query, type Statement } from "./query";
import type { Engine } from "./engine";

type Pending = { op: () => Query<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

const MAX_GROUP = 512;

/**
 * The database holds key hashes and webhook secrets: owner-only (0600). SQLite gives the -wal and -shm
 * files the main file's mode; files from older versions are tightened too.
 */
function restrictFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

export class SqliteEngine implements Engine {
  readonly kind = "sqlite" as const;
  readonly connection: Database;
  private queue: Pending[] = [];
  private scheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly savepoint: Prepared;
  private readonly release: Prepared;
  private readonly rollbackTo: Prepared;

  constructor(path: string, synchronous: "FULL" | "NORMAL", migrations: MigrationMeta[]) {
    if (path !== ":memory:") restrictFiles(path);
    this.connection = new Database(path, { create: true, safeIntegers: true, strict: true });
    const db = this.connection;
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${synchronous}`);
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA cache_size = -65536");
    // Each write op runs in a savepoint; its sub-journal in a temp file doubled the cost of every op.
    db.exec("PRAGMA temp_store = MEMORY");
    const orm = drizzle({ client: db }) as unknown as { dialect: { migrate: Function }; session: unknown };
    orm.dialect.migrate(migrations, orm.session, {});
    this.savepoint = db.prepare("SAVEPOINT op");
    this.release = db.prepare("RELEASE op");
    this.rollbackTo = db.prepare("ROLLBACK TO op");
  }

  private readonly execute = (statement: Statement): unknown => {
    // bun:sqlite caches the prepared statement of each SQL text.
    const prepared = this.connection.query(statement.sql);
    const params = statement.params as never[];
    if (statement.mode === "all") return prepared.all(...params);
    if (statement.mode === "get") return prepared.get(...params);
    return prepared.run(...params).changes;
  };

  write<T>(op: () => Query<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        setImmediate(() => this.flush());
      }
    });
  }

  /** Every read is one snapshot here: it runs synchronously, between groups. */
  read<T>(query: Query<T>): Promise<T> {
    try {
      return Promise.resolve(stepSync(query, this.execute, []));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private flush(): void {
    const group = this.queue.splice(0, MAX_GROUP);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const callbacks: (() => void)[] = [];
    try {
      this.connection.exec("BEGIN IMMEDIATE");
      for (const pending of group) {
        this.savepoint.run();
        const after: (() => void)[] = [];
        try {
          const value = stepSync(pending.op(), this.execute, after);
          this.release.run();
          callbacks.push(...after);
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.rollbackTo.run();
          this.release.run();
          outcomes.push({ ok: false, value: error });
        }
      }
      this.connection.exec("COMMIT");
    } catch (error) {
      if (this.connection.inTransaction) this.connection.exec("ROLLBACK");
      for (const pending of group) pending.reject(error);
      this.next();
      return;
    }
    group.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.value);
    });
    runAfterCommit(callbacks);
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
  async exclusive<T>(name: string, wait: boolean, fn: () => Promise<T>): Promise<T | null> {
    const held = this.locks.get(name);
    if (held && !wait) return null;
    const previous = held ?? Promise.resolve();
    const run = previous.catch(() => {}).then(fn);
    this.locks.set(name, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(name) === run) this.locks.delete(name);
    }
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
    this.connection.close();
  }
}
