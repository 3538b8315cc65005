// The PostgreSQL engine, over Bun's built-in SQL client: many agentbank instances may share one
// database. Every write op is one READ COMMITTED transaction, made as safe as the single SQLite writer
// by three rules the ops follow:
// - money moves by atomic increments (UPDATE accounts SET balance = balance + ?, a debit only WHERE
//   balance + ? >= 0, evaluated on the row as it is when locked): concurrent payments of one account
//   wait for its row lock and never lose an update or overdraw it;
// - a row an op reads in order to change it (a bet's status, a subscription's period, a cursor) is read
//   FOR NO KEY UPDATE, and limits between two agents lock both agents' rows (in id order): an op that acts on
//   the same thing waits, then sees what the first one did;
// - what must happen once has a unique key (idempotency keys, charges per period, deposits per log):
//   the second transaction hits it and the whole op runs again from the start, finding the first one's
//   result.
// A deadlock or a unique-key collision runs the op again (its statements are re-yielded; what it does
// outside the database happens once: after-commit callbacks run after the commit that counted).
// No code holds a connection while it waits for another one or for a lock: every connection has
// lock_timeout (a row lock held past it is 503 SERVICE_BUSY, not run again), and a named lock
// (exclusive) is waited for in this process's queue and then tried, not waited for, across instances.
// Measured against SERIALIZABLE with retry: that aborted most concurrent payments of one agent, and
// every other use of a hot row (the system accounts, the address counter) — docs/architecture.md.
import { SQL } from "bun";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/bun-sql";
import { serviceBusy } from "../errors";
import { logLine } from "../log";
import { Cache } from "./cache";
import { LocalLocks, waitedTooLong } from "./local-locks";
import { applyMigrations } from "./migrate";
import { toPostgres } from "./pg-dialect";
import { runAfterCommit, stepAsync, type Op, type Statement } from "./query";
import type { Engine } from "./engine";
import { databaseStats } from "./stats";

/** SQLSTATEs after which the whole transaction is run again, and how many attempts each gets. */
const ATTEMPTS: Record<string, number> = {
  "40P01": 10, // deadlock_detected: row locks taken in another order by a concurrent op
  "40001": 10, // serialization_failure
  // unique_violation: a concurrent op inserted the same key first; the next attempt finds its row. A
  // violation that repeats is not a race but a bug, and gives up quickly.
  "23505": 3,
};

/**
 * How long a statement waits for a row or table lock, on every connection of the pool; past it the
 * statement fails with 55P03 (lock_not_available) and the op answers SERVICE_BUSY at once: it has
 * waited long enough, and the client may send it again. Above PostgreSQL's deadlock_timeout (1 s by
 * default), so a deadlock is found first and its op run again.
 */
export const LOCK_TIMEOUT = "5s";

/** Between two tries of a named lock another instance holds: the first pause, doubled up to the last (with jitter). */
const TRY_PAUSE_MS = { first: 5, last: 50 };

type Client = Pick<SQL, "unsafe">;

const sqlState = (error: unknown) => (error as { errno?: unknown })?.errno;

/** A statement's error as the op answers it: lock_timeout's becomes SERVICE_BUSY. */
function answerable(error: unknown): unknown {
  return sqlState(error) === "55P03" ? serviceBusy(`a row it needs stayed locked for ${LOCK_TIMEOUT}`) : error;
}

/** A stable 64-bit key for pg_advisory_lock from a lock name. */
export const lockKey = (name: string) => BigInt.asIntN(64, BigInt(Bun.hash(`agentbank:${name}`)));

/** How long a starting instance waits for another one's migrations. */
const MIGRATIONS_WAIT_MS = 10 * 60_000;

export class PostgresEngine implements Engine {
  readonly kind = "postgres" as const;
  readonly sql: SQL;
  private readonly translated = new Map<string, string>();
  /** Other instances write too: only facts that never change are cached (see cache.ts). */
  private readonly cache = new Cache(false);
  /** Named locks: this process's queue; only the waiter whose turn it is tries the database's lock. */
  private readonly locks = new LocalLocks();
  /**
   * The session that holds this instance's named locks: one connection beside the pool (never idle-
   * closed), so a held lock keeps none of the pool's connections from what runs under it.
   */
  private readonly lockSession: SQL;
  private closing = false;

  private constructor(url: string, poolSize: number) {
    const options = { url, bigint: true, connection: { lock_timeout: LOCK_TIMEOUT } };
    this.sql = new SQL({ ...options, max: poolSize, idleTimeout: 30 });
    databaseStats.poolSize = poolSize;
    this.lockSession = new SQL({
      ...options,
      max: 1,
      onclose: () => {
        if (!this.closing) logLine({ level: "warn", msg: "the named locks' session dropped: the locks this instance held are released" });
      },
    });
  }

  static async open(url: string, poolSize: number, migrations: MigrationMeta[]): Promise<PostgresEngine> {
    const engine = new PostgresEngine(url, poolSize);
    // Two instances starting at once must not both migrate: a session lock around the migrator.
    await engine.exclusive("migrations", MIGRATIONS_WAIT_MS, async () => {
      await applyMigrations(drizzle({ client: engine.sql }), migrations);
    });
    return engine;
  }

  private text(sql: string): string {
    let text = this.translated.get(sql);
    if (text === undefined) {
      text = toPostgres(sql);
      this.translated.set(sql, text);
    }
    return text;
  }

  /**
   * Runs a statement. Bun's queries start when `then` is first called on them: called here at once, so
   * statements reach the connection in the order the op yields them (an `await` would call it a
   * microtask later, after a COMMIT started in the meantime).
   */
  private executor(client: Client) {
    return (statement: Statement): Promise<unknown> => {
      const sql = statement.mode === "insertId" ? `${statement.sql} RETURNING id` : statement.sql;
      return client.unsafe(this.text(sql), statement.params as never[]).then((rows: unknown[]) => {
        if (statement.mode === "all") return rows;
        if (statement.mode === "get") return rows[0] ?? null;
        if (statement.mode === "insertId") return (rows[0] as { id: bigint }).id;
        return (rows as unknown as { count: number }).count;
      });
    };
  }

  /**
   * One transaction on a connection of the pool, opened and closed without round trips of their own:
   * BEGIN goes out with the op's first statement and COMMIT behind its last writes (see Transaction in
   * query.ts), where the client's begin() waited for each.
   */
  async write<T>(op: () => Op<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const after: (() => void)[] = [];
      const cached = this.cache.view();
      databaseStats.connectionsWanted += 1;
      const connection = await this.sql.reserve().catch((error: unknown) => this.unwanted(Promise.reject(error)));
      let value: T;
      try {
        const transaction = { begun: connection.unsafe("BEGIN").then(), commit: () => connection.unsafe("COMMIT").then() };
        value = await stepAsync(op(), this.executor(connection), after, cached, transaction);
      } catch (error) {
        await connection.unsafe("ROLLBACK").catch(() => {}); // none open when COMMIT already rolled back
        connection.release();
        databaseStats.connectionsWanted -= 1;
        const limit = ATTEMPTS[sqlState(error) as string] ?? 0;
        if (attempt >= limit) throw answerable(error);
        databaseStats.retried += 1;
        await Bun.sleep(Math.random() * Math.min(20, 2 ** attempt));
        continue;
      }
      connection.release();
      databaseStats.connectionsWanted -= 1;
      databaseStats.committed += 1;
      cached.commit();
      runAfterCommit(after);
      return value;
    }
  }

  /** Settles with `work` once it ends, counting its pool connection as no longer wanted. */
  private unwanted<T>(work: Promise<T>): Promise<T> {
    return work.finally(() => (databaseStats.connectionsWanted -= 1));
  }

  read<T>(query: Op<T>, snapshot = false): Promise<T> {
    databaseStats.connectionsWanted += 1;
    const reading = snapshot
      ? (this.sql.begin("isolation level repeatable read read only", (tx) => stepAsync(query, this.executor(tx), [], this.cache.readView())) as Promise<T>)
      : stepAsync(query, this.executor(this.sql), [], this.cache.readView());
    return this.unwanted(reading).catch((error: unknown) => Promise.reject(answerable(error)));
  }

  /**
   * A session-level advisory lock on the lock session, on this process's turn (its queue: one waiter
   * per instance asks the database). It is tried, not waited for: between tries the waiter holds no
   * connection. Released when fn ends, or by the server if this instance dies holding it (its session
   * drops), so another instance takes over.
   */
  exclusive<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<T | null> {
    const deadline = Date.now() + waitMs;
    return this.locks.exclusive(name, waitMs, async () => {
      const key = lockKey(name);
      if (!(await this.tryLock(name, key, waitMs, deadline))) return null;
      try {
        return await fn();
      } finally {
        // A failed unlock is a dropped session, which released the lock.
        await this.lockSession.unsafe("SELECT pg_advisory_unlock($1)", [key]).catch(() => {});
      }
    });
  }

  /** True once the lock is held; false if another instance holds it and waitMs is 0; SERVICE_BUSY past the deadline. */
  private async tryLock(name: string, key: bigint, waitMs: number, deadline: number): Promise<boolean> {
    for (let pause = TRY_PAUSE_MS.first; ; pause = Math.min(2 * pause, TRY_PAUSE_MS.last)) {
      const [{ locked }] = await this.lockSession.unsafe("SELECT pg_try_advisory_lock($1) AS locked", [key]);
      if (locked) return true;
      if (waitMs <= 0) return false;
      const wait = Math.min(pause * (0.5 + Math.random() / 2), deadline - Date.now());
      if (wait <= 0) throw waitedTooLong(name, waitMs);
      await Bun.sleep(wait);
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.sql.unsafe("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.sql.close({ timeout: 5 });
    await this.lockSession.close({ timeout: 5 });
  }
}
