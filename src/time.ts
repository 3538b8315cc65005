// Lengths of time in milliseconds: the unit of clock.nowMs() and of every time the database stores.
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
