// Applying what is due: the one way every timed transition (a bet's expiry, a contract's deadline, a
// subscription's charge…) finds and applies its due items. Due ids are read in batches by an index on
// the due column; each item is applied by its feature's `apply`, an op run as a write of its own that
// locks the item, checks again that it is still due and applies the transition (an item a concurrent
// action or run got to first is left alone); a transition that asks the network between its writes (an
// oracle's answer, a charge held for the owner) is `applyAcross` and opens its own. A run is bounded (items and time): what is left stays due and the
// next run (the 5 s job, the next read) takes it. Nothing is claimed, so a crash between two items
// loses nothing: what was applied committed, what was not is still due.
import { clock } from "./clock";
import { logLine } from "./log";
import { all, get, read, write, type Op } from "./db";

/** `I`: the type of the table's ids (an AgentId, a LoanId…, src/ids.ts), as `apply` takes them. */
export type DueWork<I extends string = string> = {
  /** The job's name, in the run's log line. */
  name: string;
  table: string;
  /** What makes a row a candidate besides its time (e.g. `status = 'OPEN'`), served by the index with `dueColumn`. */
  where: string;
  /** The due time (ms); a row is due once it is at or before now. NULL is never due. */
  dueColumn: string;
} & (
  | {
      /** Applies the transition to one item if it is still due (a write op); true if it did. */
      apply: (id: I) => Op<boolean>;
    }
  | {
      /** The same, for a transition that asks the network between its writes: it runs its own. */
      applyAcross: (id: I) => Promise<boolean>;
    }
);

const applyOne = <I extends string>(work: DueWork<I>, id: I) => ("apply" in work ? write(() => work.apply(id)) : work.applyAcross(id));

/** Narrows a run to what one caller may see (a list of the caller's own items). */
export type DueScope = { where: string; params: unknown[] };

export type DueBounds = { batch: number; maxItems: number; maxMs: number };
/** Per run: ids read (`loaded`), transitions applied, items whose apply threw, and whether the run stopped at its bound. */
export type DueRun = { loaded: number; applied: number; failed: number; more: boolean };

export const DUE_BOUNDS: DueBounds = { batch: 100, maxItems: 500, maxMs: 3000 };

const dueSql = <I extends string>(work: DueWork<I>, extra = "") => `SELECT id FROM ${work.table} WHERE ${work.where} AND ${work.dueColumn} <= ? ${extra}`;

/**
 * One run: reads up to `batch` due ids at a time and applies them (concurrently: on SQLite they share
 * a group commit, each in its own savepoint; on PostgreSQL each is its own transaction), until nothing
 * is due or the run has read `maxItems` ids or spent `maxMs`. An item is read once per run: one that
 * stays due (its apply threw, which is logged, or it waits, like an oracle to be asked again) is left
 * for the next run.
 */
export async function applyDue<I extends string>(work: DueWork<I>, scope?: DueScope, bounds: DueBounds = DUE_BOUNDS): Promise<DueRun> {
  const started = performance.now();
  const run: DueRun = { loaded: 0, applied: 0, failed: 0, more: false };
  const seen = new Set<I>();
  const scoped = scope ? `AND ${scope.where}` : "";
  for (;;) {
    const room = bounds.maxItems - run.loaded;
    if (room <= 0 || performance.now() - started >= bounds.maxMs) {
      run.more = true;
      break;
    }
    const asked = Math.min(bounds.batch, room) + seen.size;
    const rows = await read(all<{ id: I }>(`${dueSql(work, scoped)} LIMIT ?`, clock.nowMs(), ...(scope?.params ?? []), asked));
    const ids = rows.map((row) => row.id).filter((id) => !seen.has(id)).slice(0, room);
    if (ids.length === 0) break;
    for (const id of ids) seen.add(id);
    run.loaded += ids.length;
    const outcomes = await Promise.allSettled(ids.map((id) => applyOne(work, id)));
    outcomes.forEach((outcome, index) => {
      if (outcome.status === "fulfilled") {
        if (outcome.value) run.applied += 1;
        return;
      }
      run.failed += 1;
      logLine({ level: "error", msg: "due item failed", job: work.name, id: ids[index], error: String(outcome.reason) });
    });
    // Fewer rows than asked: everything due was in this batch.
    if (rows.length < asked) break;
  }
  if (run.loaded > 0) logLine({ level: "info", msg: "due work", job: work.name, scoped: scope !== undefined, ...run });
  return run;
}

/** For a read or action on one item: applies its transition if it is due (a write only then). */
export async function applyIfDue<I extends string>(work: DueWork<I>, id: I): Promise<boolean> {
  const due = await read(get<{ id: string }>(`${dueSql(work)} AND id = ?`, clock.nowMs(), id));
  return due ? applyOne(work, id) : false;
}
