// Small service-wide values that must survive a restart (cursors, the test clock's offset, nonces).
import { FOR_UPDATE, get, run, type Query } from "./query";

/** `lock`: in a write op that will set it from what it read (a cursor, a counter). */
export function* getSetting(key: string, lock = false): Query<string | null> {
  return (yield* get<{ value: string }>(`SELECT value FROM settings WHERE key = ? ${lock ? FOR_UPDATE : ""}`, key))?.value ?? null;
}

/** Inside a write op. */
export function* setSetting(key: string, value: string): Query<void> {
  yield* run("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
}
