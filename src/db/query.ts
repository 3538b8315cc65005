// How features talk to the database, whichever engine runs it. A query or a write op is a generator
// that yields its statements and receives their results:
//
//   function* findAgent(id: string): Op<AgentRow | null> {
//     return yield* get<AgentRow>("SELECT id, name, score FROM agents WHERE id = ?", id);
//   }
//
// The engine decides how a yielded statement runs: on SQLite synchronously, inside the group commit
// (a write op is one savepoint; nothing else can happen in between, so an op can never await the
// network inside a transaction); on PostgreSQL as a round trip inside the op's own transaction
// (READ COMMITTED: see postgres.ts for the locking rules an op follows). Features write portable
// SQL: `?` placeholders, `AS camelCase` aliases, ON CONFLICT, RETURNING, CAST(… AS BIGINT) around
// SUM, FOR_UPDATE on the rows an op reads to change. Integers (money, counts, times) come back as
// bigint. Never catch an error a statement raised and carry on: PostgreSQL has aborted the
// transaction then.

import { logLine } from "../log";
import type { CacheKey, CacheScope, CacheView } from "./cache";

/**
 * Put at the end of a SELECT, inside a write op, that reads a row the op is going to change because of
 * what it read (a status, a counter, a cursor): FOR NO KEY UPDATE on PostgreSQL, where concurrent
 * transactions of other instances must wait for this one instead of acting on the same old value; a
 * comment to SQLite, whose single writer runs one op at a time anyway.
 */
export const FOR_UPDATE = "/*for update*/";

/**
 * Put after a SELECT that claims rows for work (an outbox): FOR NO KEY UPDATE SKIP LOCKED on
 * PostgreSQL, so instances take different rows; a comment to SQLite, whose single writer needs nothing.
 */
export const SKIP_LOCKED = "/*skip locked*/";

export type Statement = { kind: "sql"; sql: string; params: unknown[]; mode: "all" | "get" | "run" | "insertId" | "later" };
/**
 * `cache`: asks the engine for the cache view of this op's transaction (see remember). `actingKey`:
 * asks which restricted key the op acts for (see actingAs); the engines answer null.
 */
export type Step =
  | Statement
  | { kind: "after"; fn: () => void }
  | { kind: "cache" }
  | { kind: "actingKey" }
  | { kind: "together"; queries: Op<unknown>[] };
/** A step generator: a read query or a write op, run by an engine (`read`, `write`); a call of one that is not `yield*`ed does nothing. */
export type Op<T> = Generator<Step, T, unknown>;

/** Every row of a SELECT (or of a statement with RETURNING). */
export function* all<T>(sql: string, ...params: unknown[]): Op<T[]> {
  return (yield { kind: "sql", sql, params, mode: "all" }) as T[];
}

/** The first row, or null. */
export function* get<T>(sql: string, ...params: unknown[]): Op<T | null> {
  return (yield { kind: "sql", sql, params, mode: "get" }) as T | null;
}

/** Runs a statement; returns how many rows it changed. */
export function* run(sql: string, ...params: unknown[]): Op<number> {
  return (yield { kind: "sql", sql, params, mode: "run" }) as number;
}

/**
 * A write whose answer the op does not read (a row it already holds, a count moved by an upsert):
 * PostgreSQL sends it without waiting, and waits for it together with the next statement the op does
 * wait for (or before the COMMIT): one round trip for both; if it fails, the whole op fails, and the
 * error is not thrown into the op at a statement that is not its own (the transaction is lost anyway).
 * SQLite runs it on the spot, like any statement.
 */
export function* runLater(sql: string, ...params: unknown[]): Op<void> {
  yield { kind: "sql", sql, params, mode: "later" };
}

/**
 * A plain INSERT of one row into a table keyed by a serial `id` (no ON CONFLICT, no RETURNING);
 * answers the new id. SQLite reads it from the connection (RETURNING would cost more than the insert);
 * PostgreSQL adds RETURNING id.
 */
export function* insertId(sql: string, ...params: unknown[]): Op<bigint> {
  return (yield { kind: "sql", sql, params, mode: "insertId" }) as bigint;
}

/**
 * Independent queries (reads, typically: none needs another's answer, and the op does not care in which
 * order they run): PostgreSQL sends their statements together and waits once, one round trip for all
 * (each query's later statements follow its own answers); SQLite runs them one after the other. Answers
 * their results in order. If any fails, the first failure in argument order is thrown here (on
 * PostgreSQL once every one of them has ended; on SQLite the ones after it do not run).
 */
export function* together<T extends unknown[]>(...queries: { [K in keyof T]: Op<T[K]> }): Op<T> {
  return (yield { kind: "together", queries: queries as Op<unknown>[] }) as T;
}

/**
 * What `load` reads, from memory when it was read before (see cache.ts for the scopes). A null result is
 * not kept: what does not exist yet may exist at the next read.
 */
export function* remember<T>(key: CacheKey, scope: CacheScope, load: () => Op<T>): Op<T> {
  const cache = (yield { kind: "cache" }) as CacheView;
  const known = cache.get(key, scope);
  if (known !== undefined) return known as T;
  const value = yield* load();
  if (value !== null && value !== undefined) cache.put(key, value, scope);
  return value;
}

/** Inside a write op that changed what `key` holds: the cache forgets it (when the op commits). */
export function* forget(key: CacheKey): Op<void> {
  ((yield { kind: "cache" }) as CacheView).forget(key);
}

/** Inside a write op that changed a cached row in a known way: the cached copy changes the same way. */
export function* revise<T>(key: CacheKey, change: (value: T) => T): Op<void> {
  ((yield { kind: "cache" }) as CacheView).revise(key, change);
}

/** Inside a write op: `fn` runs after the op's transaction has committed (never if it rolled back). */
export function* afterCommit(fn: () => void): Op<void> {
  yield { kind: "after", fn };
}

/**
 * The id of the restricted key (pp_r_…) whose request this op runs, or null (the agent key, the owner,
 * the service's own jobs): what an op records as the key that acted and checks the key's budget by.
 * Set by actingAs() around the request's op, so nothing between the route and the statement passes it.
 */
export function* actingKey(): Op<string | null> {
  return (yield { kind: "actingKey" }) as string | null;
}

/** Runs `query` for the restricted key `keyId`: every actingKey() inside it answers that id. */
export function* actingAs<T>(keyId: string | null, query: Op<T>): Op<T> {
  let next = query.next();
  while (!next.done) {
    if (next.value.kind === "actingKey") {
      next = query.next(keyId);
      continue;
    }
    const step: Step = next.value.kind === "together" ? { kind: "together", queries: next.value.queries.map((inner) => actingAs(keyId, inner)) } : next.value;
    let result: unknown;
    try {
      result = yield step;
    } catch (error) {
      next = query.throw(error);
      continue;
    }
    next = query.next(result);
  }
  return next.value;
}

/** Answers a step that is neither a statement nor `together`: what the query receives back. */
function bookkeeping(step: Exclude<Step, Statement | { kind: "together" }>, cache: CacheView, after: (() => void)[]): CacheView | null | undefined {
  if (step.kind === "cache") return cache;
  if (step.kind === "actingKey") return null;
  after.push(step.fn);
  return undefined;
}

/** Drives a query whose statements run synchronously (SQLite). */
export function stepSync<T>(query: Op<T>, execute: (statement: Statement) => unknown, after: (() => void)[], cache: CacheView): T {
  let next = query.next();
  while (!next.done) {
    const step = next.value;
    let result: unknown;
    try {
      if (step.kind === "sql") result = execute(step);
      else if (step.kind === "together") result = step.queries.map((inner) => stepSync(inner, execute, after, cache));
      else result = bookkeeping(step, cache, after);
    } catch (error) {
      next = query.throw(error);
      continue;
    }
    next = query.next(result);
  }
  return next.value;
}

/** Waits for every promise; then throws the first failure in their order, if any. */
async function allOrFirstFailure(promises: Promise<unknown>[]): Promise<unknown[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value);
}

/** Keeps a promise waited for elsewhere from counting as an unhandled failure in the meantime. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * The statements that open and close the op's transaction, sent by stepAsync without a round trip of
 * their own: `begun` (BEGIN, already sent) is waited for with the op's first statement it waits for, as a
 * runLater write is; `commit` is sent behind the op's last runLater writes and waited for with them (on
 * a transaction a write failed in, PostgreSQL answers COMMIT by rolling back; the write's failure fails
 * the op).
 */
export type Transaction = { begun: Promise<unknown>; commit: () => Promise<unknown> };

/**
 * Drives a query whose statements are round trips (PostgreSQL). Writes sent with runLater are not
 * waited for until the next statement the op waits for has been sent behind them (the connection runs
 * them in order), or the op ends; one of them failing fails the op. The queries of `together` run at once
 * on the same connection. Nothing the op sent is still running when this returns or throws, so the
 * caller may roll back and give the connection back.
 */
export async function stepAsync<T>(
  query: Op<T>,
  execute: (statement: Statement) => Promise<unknown>,
  after: (() => void)[],
  cache: CacheView,
  transaction?: Transaction,
): Promise<T> {
  let sent: Promise<unknown>[] = transaction ? [quiet(transaction.begun)] : [];
  let answer: Promise<unknown> | null = null;
  const settle = () => {
    const writes = sent;
    sent = [];
    return allOrFirstFailure(writes);
  };
  try {
    let next = query.next();
    while (!next.done) {
      const step = next.value;
      if (step.kind === "sql" && step.mode === "later") {
        sent.push(quiet(execute(step)));
        next = query.next(undefined);
        continue;
      }
      answer = null;
      if (step.kind === "sql") answer = quiet(execute(step));
      else if (step.kind === "together") answer = quiet(allOrFirstFailure(step.queries.map((inner) => stepAsync(inner, execute, after, cache))));
      // not inside the try below: a failed write fails the op, it is not thrown into it
      if (answer && sent.length > 0) await settle();
      let result: unknown;
      try {
        result = answer ? await answer : bookkeeping(step as Exclude<Step, Statement | { kind: "together" }>, cache, after);
      } catch (error) {
        next = query.throw(error);
        continue;
      }
      next = query.next(result);
    }
    answer = null;
    if (transaction) sent.push(quiet(transaction.commit()));
    await settle();
    return next.value;
  } catch (error) {
    await Promise.allSettled(answer ? [...sent, answer] : sent);
    throw error;
  }
}

/** Runs after-commit callbacks; one failing never stops the others (they are side effects, logged). */
export function runAfterCommit(callbacks: (() => void)[]): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch (error) {
      logLine({ level: "error", msg: "after-commit callback failed", error: String(error) });
    }
  }
}
