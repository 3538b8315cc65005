// Direct SQL on a test server's database (its SQLite file, or its PostgreSQL database): to look at rows
// the API does not show, or to corrupt them on purpose.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db";
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

/**
 * The suite's engine opened in this process (src/db's openDatabase) on a fresh database: a SQLite file
 * in a temporary folder, or a new PostgreSQL database with TEST_DATABASE_URL (its URL returned, for a
 * second engine on it). close() closes the engine and deletes the database.
 */
export async function openFreshDatabase(label: string, dbPoolSize: number): Promise<{ postgresUrl: string | undefined; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `agentbank-${label}-`));
  const name = `agentbank_${label}_${crypto.randomUUID().replaceAll("-", "")}`;
  let postgresUrl: string | undefined;
  if (TEST_POSTGRES) {
    const admin = new SQL(TEST_POSTGRES);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.close();
    const url = new URL(TEST_POSTGRES);
    url.pathname = `/${name}`;
    postgresUrl = url.toString();
  }
  await openDatabase({ databasePath: join(dir, `${label}.db`), databaseUrl: postgresUrl, dbSynchronous: "NORMAL", dbPoolSize });
  return {
    postgresUrl,
    close: async () => {
      await closeDatabase();
      if (TEST_POSTGRES) {
        const admin = new SQL(TEST_POSTGRES);
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
