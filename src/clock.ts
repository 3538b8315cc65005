// The one source of time. The test clock (TEST_CLOCK=true) adds an offset that only moves forward;
// it is kept in the database so a restart does not move the service's time backwards.
import { getSetting, setSetting } from "./db/settings";

const OFFSET_KEY = "test_clock_offset_ms";
let offsetMs = 0;

export const clock = {
  nowMs(): number {
    return Date.now() + offsetMs;
  },
  /** Inside write(). */
  advance(seconds: number): void {
    offsetMs += Math.round(seconds * 1000);
    setSetting(OFFSET_KEY, String(offsetMs));
  },
  /** At start with TEST_CLOCK=true: continue from the offset the last run reached. */
  restoreTestOffset(): void {
    offsetMs = Number(getSetting(OFFSET_KEY) ?? 0);
  },
};

export const iso = (ms: number): string => new Date(ms).toISOString();
