// The one source of time. The test clock (TEST_CLOCK=true) adds an offset that only moves forward.
let offsetMs = 0;

export const clock = {
  nowMs(): number {
    return Date.now() + offsetMs;
  },
  now(): Date {
    return new Date(clock.nowMs());
  },
  advance(seconds: number): void {
    offsetMs += seconds * 1000;
  },
};

export const iso = (ms: number): string => new Date(ms).toISOString();
