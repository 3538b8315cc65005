// Direct SQL on a test server's database (its SQLite file, or its PostgreSQL database): to look at rows
// the API does not show, or to corrupt them on purpose.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { TEST_POSTGRES, type TestServer } from "./server";

export type DirectDatabase = { execute: (sql: string) => Promise<Record<string, unknown>[]>; close: () => void };

export function directDatabase(server: TestServer): DirectDatabase {
  if (TEST_POSTGRES) {
    const sql = new SQL(server.sharedDatabaseEnv.DATABASE_URL!);
    return { execute: async (text) => [...(await sql.unsafe(text))], close: () => void sql.close() };
  }
  const db = new Database(server.databasePath);
  db.run("PRAGMA busy_timeout = 10000");
  return { execute: async (text) => db.query(text).all() as Record<string, unknown>[], close: () => db.close() };
}
