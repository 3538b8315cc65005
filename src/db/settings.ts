// Small service-wide values that must survive a restart (cursors, the test clock's offset, nonces).
import { FOR_UPDATE, get, run, type Op } from "./query";

/** `lock`: in a write op that will set it from what it read (a cursor, a counter). */
export function* getSetting(key: string, lock = false): Op<string | null> {
  return (yield* get<{ value: string }>(`SELECT value FROM settings WHERE key = ? ${lock ? FOR_UPDATE : ""}`, key))?.value ?? null;
}

/** Inside a write op. */
export function* setSetting(key: string, value: string): Op<void> {
  yield* run("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
}

/**
 * Inside a write op: adds `amount` to a whole-number value (absent: 0) in one statement and answers
 * the sum. One atomic upsert, so concurrent additions all count, the first ones too: a locking read
 * of a row that does not exist yet locks nothing.
 */
export function* addToSetting(key: string, amount: bigint): Op<bigint> {
  const row = yield* get<{ value: string }>(
    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(settings.value AS BIGINT) + CAST(excluded.value AS BIGINT) AS TEXT) RETURNING value",
    key,
    String(amount),
  );
  return BigInt(row!.value);
}
