// The loop that sends what an outbox table holds (webhook events, mail), shared by their dispatchers.
// Woken after each commit that added something (and by a job, the backstop), it claims due items in a
// write op, at most `maxInFlight` in flight at a time, and sends each outside every transaction; a wake
// that comes during a claim claims again once that one is done. What a claim and a send are is the
// outbox's own (the claim is where instances sharing a PostgreSQL database keep off each other's items).
// An outbox whose items are retried (mail, the owner's webhook) claims with claimDue and waits backOff.
import { clock } from "./clock";
import { afterCommit, all, columns, databaseKind, run, SKIP_LOCKED, write, type Op, type Row } from "./db";
import type { AnyColumn, Table } from "./db/tables";
import { logLine } from "./log";
import { MINUTE_MS } from "./time";

export type Dispatcher = {
  /** Claims what is due and starts sending it; returns at once. */
  wake(): void;
  /** Claims nothing more; waits up to `waitMs` for the sends in flight. */
  stop(waitMs?: number): Promise<void>;
  readonly stopped: boolean;
};

export function dispatcher<Item extends { id: string }>(what: string, maxInFlight: number, claim: (limit: number) => Op<Item[]>, send: (item: Item) => Promise<void>): Dispatcher {
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let claiming = false;
  let wokenWhileClaiming = false;
  const failed = (step: string) => (error: unknown) => logLine({ level: "warn", msg: `${what} ${step} failed`, error: String((error as Error)?.message ?? error) });

  function wake(): void {
    if (stopped || inFlight.size >= maxInFlight) return;
    if (claiming) {
      wokenWhileClaiming = true;
      return;
    }
    claiming = true;
    void (async () => {
      try {
        do {
          wokenWhileClaiming = false;
          const items = await write(() => claim(maxInFlight - inFlight.size));
          for (const item of items) {
            const sending = send(item)
              .catch(failed("send"))
              .finally(() => {
                inFlight.delete(item.id);
                wake();
              });
            inFlight.set(item.id, sending);
          }
        } while (wokenWhileClaiming && !stopped && inFlight.size < maxInFlight);
      } catch (error) {
        failed("claim")(error);
      } finally {
        claiming = false;
      }
    })();
  }

  return {
    wake,
    async stop(waitMs = 0) {
      stopped = true;
      if (waitMs > 0) await Promise.race([Promise.allSettled(inFlight.values()), Bun.sleep(waitMs)]);
    },
    get stopped() {
      return stopped;
    },
  };
}

/**
 * An outbox whose items are tried until they go or are given up on: `status` is 'QUEUED' while one
 * waits, `attempts` counts those started, `next_attempt_at` (service clock) is when the next may start,
 * `claimed_at` (wall clock) when an instance took it.
 */
type RetriedOutbox = Table<{ id: AnyColumn; status: AnyColumn; attempts: AnyColumn; nextAttemptAt: AnyColumn; claimedAt: AnyColumn }>;

/** A claim this old (wall-clock ms) was made by an instance that stopped before recording its attempt. */
const RECLAIM_AFTER_MS = MINUTE_MS;
/** SQLite: the outboxes whose claims found at start this process has taken back. */
const startClaimsReleased = new WeakSet<RetriedOutbox>();

/**
 * A write op: takes up to `limit` items of `outbox` due now, counting an attempt for each (so one cut
 * short by a crash counts too). Claims age on the wall clock: the test clock must not age them. On
 * SQLite one process owns the file, so the claims found at start are a dead process's, taken back at once.
 */
export function* claimDue<T extends RetriedOutbox>(outbox: T, limit: number): Op<Row<T>[]> {
  const wallNow = Date.now();
  if (!startClaimsReleased.has(outbox) && databaseKind() === "sqlite") {
    yield* run(`UPDATE ${outbox.name} SET claimed_at = NULL WHERE status = 'QUEUED' AND claimed_at IS NOT NULL`);
    yield* afterCommit(() => startClaimsReleased.add(outbox));
  }
  return yield* all<Row<T>>(
    `UPDATE ${outbox.name} SET claimed_at = ?, attempts = attempts + 1
     WHERE id IN (SELECT id FROM ${outbox.name} WHERE status = 'QUEUED' AND next_attempt_at <= ? AND (claimed_at IS NULL OR claimed_at < ?)
                  ORDER BY next_attempt_at LIMIT ? ${SKIP_LOCKED})
     RETURNING ${columns(outbox)}`,
    wallNow,
    clock.nowMs(),
    wallNow - RECLAIM_AFTER_MS,
    limit,
  );
}

/** How long to wait after `attempts` failed attempts: `firstMs` after the first, doubling up to `longestMs`. */
export const backOff = (attempts: number, firstMs: number, longestMs: number) => Math.min(firstMs * 2 ** Math.max(0, attempts - 1), longestMs);
