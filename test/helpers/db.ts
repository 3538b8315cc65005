// Direct access to a test server's database, for what no public route offers yet: the inbox (for
// notification.financial events) and blocking. Switch to the routes once they exist.
import { Database } from "bun:sqlite";
import type { TestServer } from "./server";

function withDb<T>(server: TestServer, fn: (db: Database) => T): T {
  const db = new Database(server.databasePath);
  db.exec("PRAGMA busy_timeout = 5000");
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The data of every notification.financial event the agent received whose kind starts with `kindPrefix`, oldest first. */
export function financialNotifications(server: TestServer, agentId: string, kindPrefix = ""): Record<string, any>[] {
  const rows = withDb(server, (db) =>
    db
      .query("SELECT metadata FROM messages WHERE recipient_id = ? AND type = 'notification.financial' ORDER BY created_at, rowid")
      .all(agentId) as { metadata: string }[],
  );
  return rows.map((row) => JSON.parse(row.metadata)).filter((data) => String(data.kind).startsWith(kindPrefix));
}

/** `blockerId` blocks `blockedId` (what POST /agents/me/block records). */
export function block(server: TestServer, blockerId: string, blockedId: string): void {
  withDb(server, (db) => db.query("INSERT INTO blocks (blocker_id, blocked_id, reason, created_at) VALUES (?, ?, NULL, ?)").run(blockerId, blockedId, Date.now()));
}
