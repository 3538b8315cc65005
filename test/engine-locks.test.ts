// The engine's named locks (exclusive(): the treasury sender, the jobs, the migrations) on the engine that
// runs the suite (SQLite, or PostgreSQL with TEST_DATABASE_URL). A waiter holds nothing while it waits,
// and a held lock no connection of the pool, so more waiters than the pool has connections neither
// starve a plain read nor the holder itself (which needs connections of its own); every wait is bounded
// and a wait past its bound is 503 SERVICE_BUSY. On
// PostgreSQL also: the lock holds across instances (a second engine on the same database), every
// connection has lock_timeout, a row lock held past it is SERVICE_BUSY at once, and a deadlock is still
// run again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { exclusive, get, read, run, write } from "../src/db";
import { LOCK_TIMEOUT, PostgresEngine } from "../src/db/postgres";
import { ApiError } from "../src/errors";
import { openFreshDatabase } from "./helpers/database";
import { TEST_POSTGRES } from "./helpers/server";
import { within } from "./helpers/wait";

const POOL = 4;
/** A bound no waiter of these tests reaches, unless it hangs. */
const LONG_WAIT_MS = 20_000;
let database: Awaited<ReturnType<typeof openFreshDatabase>>;
let pgUrl = "";

beforeAll(async () => {
  database = await openFreshDatabase("locks", POOL);
  pgUrl = database.postgresUrl ?? "";
  await write(function* () {
    yield* run("CREATE TABLE lock_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
    yield* run("INSERT INTO lock_probe (id, n) VALUES (1, 0), (2, 0)");
  });
});

afterAll(() => database.close());

const one = () => read(get<{ one: number | bigint }>("SELECT 1 AS one")).then((row) => Number(row!.one));
const bump = () => write(() => run("UPDATE lock_probe SET n = n + 1 WHERE id = 1"));

/** A lock holder that keeps it until `open()` is called. */
function holdUntilOpened(lock: typeof exclusive, name: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (taken = resolve));
  const done = lock(name, LONG_WAIT_MS, async () => {
    taken();
    await gate;
  });
  return { held, open, done };
}

/**
 * What runs under the lock reads and writes like the settle under the treasury lock does (another
 * connection each time), and counts how many are inside at once.
 */
function meteredWork() {
  const metre = { inside: 0, most: 0, ran: 0 };
  const work = async () => {
    metre.inside++;
    metre.most = Math.max(metre.most, metre.inside);
    await one();
    await bump();
    metre.inside--;
    metre.ran++;
  };
  return { metre, work };
}

async function busyError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("exclusive(): waiters hold no connection, every wait is bounded", () => {
  test(`${3 * POOL} waiters on one lock (3 × the pool): a plain read answers meanwhile, the holder gets its connections, each runs alone`, async () => {
    const holder = holdUntilOpened(exclusive, "probe");
    await holder.held;
    const { metre, work } = meteredWork();
    const waiters = Array.from({ length: 3 * POOL }, () => exclusive("probe", LONG_WAIT_MS, work));
    // Time for every waiter to reach its wait (before the fix: a reserved connection in pg_advisory_lock).
    await Bun.sleep(200);
    expect(await within(1_000, "a plain read while the lock has waiters", one())).toBe(1);
    holder.open();
    await within(LONG_WAIT_MS, "the holder and its waiters", Promise.all([holder.done, ...waiters]));
    expect(metre).toEqual({ inside: 0, most: 1, ran: 3 * POOL });
  }, 30_000);

  test(`${POOL} locks held at once (as many as the pool has connections) keep none of them: a plain read answers, then each lock's next holder reads and writes`, async () => {
    const holders = Array.from({ length: POOL }, (_, n) => holdUntilOpened(exclusive, `probe-${n}`));
    await Promise.all(holders.map((holder) => holder.held));
    const { metre, work } = meteredWork();
    const inside = Array.from({ length: POOL }, (_, n) => exclusive(`probe-${n}`, LONG_WAIT_MS, work));
    expect(await within(1_000, "a plain read while every lock is held", one())).toBe(1);
    for (const holder of holders) holder.open();
    await within(LONG_WAIT_MS, "the holders and their next turns", Promise.all([...holders.map((holder) => holder.done), ...inside]));
    expect(metre.ran).toBe(POOL);
  });

  test("without wait, null at once while another holds it; past its bound a waiter answers 503 SERVICE_BUSY with Retry-After and never runs", async () => {
    const holder = holdUntilOpened(exclusive, "probe");
    await holder.held;
    let ran = false;
    expect(await exclusive("probe", 0, async () => (ran = true))).toBeNull();
    const busy = await busyError(exclusive("probe", 300, async () => (ran = true)));
    expect([busy.code, busy.status, busy.extra.retryAfterSeconds]).toEqual(["SERVICE_BUSY", 503, 1]);
    expect(ran).toBe(false);
    holder.open();
    await holder.done;
    expect(await exclusive("probe", 300, async () => "free again")).toBe("free again");
  });

  test("a waiter that timed out leaves the queue: the next waiter still runs", async () => {
    const holder = holdUntilOpened(exclusive, "probe");
    await holder.held;
    const early = exclusive("probe", 100, async () => "never");
    const patient = exclusive("probe", LONG_WAIT_MS, async () => "ran");
    expect((await busyError(early)).code).toBe("SERVICE_BUSY");
    holder.open();
    expect(await within(5_000, "the patient waiter", patient)).toBe("ran");
  });
});

describe.skipIf(TEST_POSTGRES === undefined)("PostgreSQL: across instances, lock_timeout", () => {
  let other: PostgresEngine;
  beforeAll(async () => {
    other = await PostgresEngine.open(pgUrl, POOL, []);
  });
  afterAll(async () => {
    await other?.close();
  });
  const otherLock: typeof exclusive = (name, waitMs, fn) => other.exclusive(name, waitMs, fn);

  test("another instance's waiters hold none of its connections while this one holds the lock; then they run one at a time, with this one's", async () => {
    const holder = holdUntilOpened(exclusive, "probe");
    await holder.held;
    const { metre, work } = meteredWork();
    const theirs = Array.from({ length: 3 * POOL }, () => otherLock("probe", LONG_WAIT_MS, work));
    const ours = Array.from({ length: POOL }, () => exclusive("probe", LONG_WAIT_MS, work));
    await Bun.sleep(200);
    const reads = Array.from({ length: POOL }, () => other.read(get("SELECT 1 AS one")));
    expect(await within(1_000, "the other instance's reads while its waiters wait", Promise.all(reads))).toHaveLength(POOL);
    expect(await otherLock("probe", 0, async () => "taken")).toBeNull();
    holder.open();
    await within(LONG_WAIT_MS, "every waiter of both instances", Promise.all([holder.done, ...theirs, ...ours]));
    expect(metre).toEqual({ inside: 0, most: 1, ran: 4 * POOL });
  }, 30_000);

  test("another instance's waiter past its bound answers SERVICE_BUSY", async () => {
    const holder = holdUntilOpened(exclusive, "probe");
    await holder.held;
    expect((await busyError(otherLock("probe", 300, async () => "never"))).code).toBe("SERVICE_BUSY");
    holder.open();
    await holder.done;
    expect(await otherLock("probe", 1_000, async () => "free")).toBe("free");
  });

  test(`every connection has lock_timeout ${LOCK_TIMEOUT}: reads and write ops of both instances`, async () => {
    const show = function* () {
      return (yield* get<{ lockTimeout: string }>("SELECT current_setting('lock_timeout') AS lockTimeout"))!.lockTimeout;
    };
    const seen = await Promise.all([
      ...Array.from({ length: POOL }, () => write(show)),
      ...Array.from({ length: POOL }, () => read(show())),
      other.write(show),
      other.read(show()),
    ]);
    expect(new Set(seen)).toEqual(new Set([LOCK_TIMEOUT]));
  });

  test("a row lock held past lock_timeout: the write answers SERVICE_BUSY once, not retried", async () => {
    const blocker = new SQL(pgUrl);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const rowLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = blocker.begin(async (tx) => {
      await tx.unsafe("SELECT n FROM lock_probe WHERE id = 2 FOR UPDATE");
      locked();
      await released;
    });
    await rowLocked;
    let attempts = 0;
    const blocked = write(function* () {
      attempts++;
      yield* run("UPDATE lock_probe SET n = n + 1 WHERE id = 2");
    });
    const busy = await busyError(within(15_000, "the write behind a held row lock", blocked));
    release();
    await holding;
    await blocker.close();
    expect([busy.code, busy.status, attempts]).toEqual(["SERVICE_BUSY", 503, 1]);
  }, 20_000);

  test("a deadlock is still run again: two ops locking two rows in opposite orders both commit", async () => {
    let attempts = 0;
    const crossing = (first: number, second: number) =>
      write(function* () {
        attempts++;
        yield* run("UPDATE lock_probe SET n = n + 1 WHERE id = ?", first);
        yield* get("SELECT pg_sleep(0.3)");
        yield* run("UPDATE lock_probe SET n = n + 1 WHERE id = ?", second);
      });
    const before = await read(get<{ n: bigint }>("SELECT CAST(SUM(n) AS BIGINT) AS n FROM lock_probe"));
    await within(15_000, "two crossing ops", Promise.all([crossing(1, 2), crossing(2, 1)]));
    const after = await read(get<{ n: bigint }>("SELECT CAST(SUM(n) AS BIGINT) AS n FROM lock_probe"));
    expect(after!.n - before!.n).toBe(4n);
    // The deadlock's victim ran again (on a loaded machine its retry may meet the other op once more).
    expect(attempts).toBeGreaterThanOrEqual(3);
  }, 20_000);
});
