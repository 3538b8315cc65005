// The one source of time. The test clock (TEST_CLOCK=true) adds an offset that only moves forward;
// it is kept in the database, so a restart does not move the service's time backwards and every
// instance sharing a PostgreSQL database reads the same time (refreshTestClock, per request).
import { read } from "./db";
import { afterCommit, type Op } from "./db/query";
import { addToSetting, getSetting } from "./db/settings";

const OFFSET_KEY = "test_clock_offset_ms";
let offsetMs = 0;

export const clock = {
  nowMs(): number {
    return Date.now() + offsetMs;
  },
  /**
   * A write op: moves the test clock forward by `seconds`: one atomic increment of the offset the
   * database holds, so moves made at once on any instances all count.
   */
  *advance(seconds: number): Op<void> {
    const next = Number(yield* addToSetting(OFFSET_KEY, BigInt(Math.round(seconds * 1000))));
    yield* afterCommit(() => (offsetMs = Math.max(offsetMs, next)));
  },
};

/** With TEST_CLOCK=true: take up the offset the database holds (at start, and per request with several instances). */
export async function refreshTestClock(): Promise<void> {
  offsetMs = Math.max(offsetMs, Number((await read(getSetting(OFFSET_KEY))) ?? 0));
}

/** A time in ms (a number, or a bigint as stored) as ISO 8601. */
export const iso = (ms: number | bigint): string => new Date(Number(ms)).toISOString();
export const isoOrNull = (ms: number | bigint | null): string | null => (ms === null ? null : iso(ms));
