// Small service-wide values that must survive a restart (cursors, the test clock's offset, nonces).
import { sqlite } from "./index";

export function getSetting(key: string): string | null {
  const row = sqlite.query("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | null;
  return row?.value ?? null;
}

/** Inside write(). */
export function setSetting(key: string, value: string): void {
  sqlite.query("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
}
