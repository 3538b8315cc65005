// The two migration trees (migrations/sqlite, migrations/pg) hold the same steps in the same order, each
// step is in its journal with its snapshot, and the binary embeds exactly those files
// (src/db/migrations.generated.ts). Shipped migrations are never renumbered or rewritten: deployed
// databases record them (drizzle's __drizzle_migrations: hash and time).
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle as sqliteDrizzle } from "drizzle-orm/bun-sqlite";
import { drizzle as pgDrizzle } from "drizzle-orm/bun-sql";
import { applyMigrations, migrationMetas } from "../src/db/migrate";
import { pgMigrations, sqliteMigrations } from "../src/db/migrations.generated";
import { toPostgres } from "../src/db/pg-dialect";
import { TEST_POSTGRES } from "./helpers/server";

const ENGINES = ["sqlite", "pg"] as const;
type Engine = (typeof ENGINES)[number];
const root = join(import.meta.dir, "..");
const folder = (engine: Engine) => join(root, "migrations", engine);
const journal = (engine: Engine) =>
  JSON.parse(readFileSync(join(folder(engine), "meta/_journal.json"), "utf8")) as { entries: { idx: number; when: number; tag: string; breakpoints: boolean }[] };
const tags = (engine: Engine) => journal(engine).entries.map((entry) => entry.tag);
/** A step's name: its tag without the number, which differs between the trees. */
const stepName = (tag: string) => tag.replace(/^\d{4}_/, "");
const embedded = { sqlite: sqliteMigrations, pg: pgMigrations };

/**
 * SQLite shipped three steps before the PostgreSQL engine existed; PostgreSQL's first step (init)
 * already holds what they added, so its tree never had them.
 */
const SQLITE_ONLY = ["x402_pending", "outbox_claims", "system_accounts"];
/** From this step on, both trees hold the same steps in the same order. */
const SAME_FROM = "owners_and_hot_path";

describe("migration trees", () => {
  test("both hold the same steps in the same order, but for SQLite's three early ones", () => {
    const sqlite = tags("sqlite").map(stepName);
    const pg = tags("pg").map(stepName);
    expect(sqlite.slice(0, sqlite.indexOf(SAME_FROM))).toEqual(["init", ...SQLITE_ONLY]);
    expect(pg.slice(0, pg.indexOf(SAME_FROM))).toEqual(["init"]);
    expect(sqlite.slice(sqlite.indexOf(SAME_FROM))).toEqual(pg.slice(pg.indexOf(SAME_FROM)));
  });

  test("a step's hand-written SQL (its comment lines say what it does) is in both trees", () => {
    const comments = (engine: Engine, name: string) => {
      const tag = tags(engine).find((candidate) => stepName(candidate) === name)!;
      return readFileSync(join(folder(engine), `${tag}.sql`), "utf8").split("\n").filter((line) => /^--(?!>)/.test(line));
    };
    for (const name of tags("pg").map(stepName)) expect({ name, sqlite: comments("sqlite", name) }).toEqual({ name, sqlite: comments("pg", name) });
  });

  for (const engine of ENGINES) {
    test(`${engine}: every SQL file is a journal entry, numbered in order, later than the one before, with its snapshot`, () => {
      const entries = journal(engine).entries;
      const files = readdirSync(folder(engine)).filter((file) => file.endsWith(".sql")).sort();
      expect(files).toEqual(entries.map((entry) => `${entry.tag}.sql`));
      let previous = { id: "00000000-0000-0000-0000-000000000000", when: 0 };
      entries.forEach((entry, index) => {
        expect(entry.idx).toBe(index);
        expect(entry.tag.slice(0, 5)).toBe(`${String(index).padStart(4, "0")}_`);
        // drizzle's migrator runs the steps later than the last one a database recorded.
        expect(entry.when).toBeGreaterThan(previous.when);
        const snapshot = join(folder(engine), `meta/${entry.tag.slice(0, 4)}_snapshot.json`);
        expect(existsSync(snapshot)).toBe(true);
        const { id, prevId } = JSON.parse(readFileSync(snapshot, "utf8")) as { id: string; prevId: string };
        expect(prevId).toBe(previous.id);
        previous = { id, when: entry.when };
      });
    });

    test(`${engine}: the embedded list is the journal's files`, () => {
      expect(embedded[engine]).toEqual(
        journal(engine).entries.map((entry) => ({ tag: entry.tag, when: entry.when, breakpoints: entry.breakpoints, sql: readFileSync(join(folder(engine), `${entry.tag}.sql`), "utf8") })),
      );
    });
  }
});

/** A database at the steps before `step`, given rows, then migrated to the end: what each statement answers. */
type Run = (sql: string, ...params: unknown[]) => Promise<unknown[]>;

async function fromStepBefore(engine: Engine, step: string, before: (run: Run) => Promise<void>, after: (run: Run) => Promise<void>): Promise<void> {
  const metas = migrationMetas(embedded[engine]);
  const upTo = embedded[engine].findIndex((migration) => stepName(migration.tag) === step);
  expect(upTo).toBeGreaterThan(0);
  if (engine === "sqlite") {
    const db = new Database(":memory:");
    const orm = sqliteDrizzle({ client: db });
    const run: Run = async (sql, ...params) => db.query(sql).all(...(params as never[]));
    applyMigrations(orm, metas.slice(0, upTo));
    await before(run);
    applyMigrations(orm, metas);
    await after(run);
    db.close();
    return;
  }
  const name = `agentbank_migrations_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = new SQL(TEST_POSTGRES!);
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const url = new URL(TEST_POSTGRES!);
  url.pathname = `/${name}`;
  const db = new SQL(url.toString());
  try {
    const orm = pgDrizzle({ client: db });
    const run: Run = (sql, ...params) => db.unsafe(toPostgres(sql), params as never[]);
    await applyMigrations(orm, metas.slice(0, upTo));
    await before(run);
    await applyMigrations(orm, metas);
    await after(run);
  } finally {
    await db.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.close();
  }
}

describe("data steps", () => {
  for (const engine of TEST_POSTGRES ? (["pg"] as const) : (["sqlite"] as const)) {
    test(`${engine}: blocks_pair_unique keeps the earliest row of a pair blocked twice`, async () => {
      await fromStepBefore(
        engine,
        "blocks_pair_unique",
        async (run) => {
          for (const id of ["a", "b", "c"]) {
            await run("INSERT INTO agents (id, name, owner_name, owner_email, capabilities, api_key_hash, owner_key_hash, created_at) VALUES (?, ?, 'o', 'o@example.com', '[]', ?, ?, 1)", id, id, `api-${id}`, `owner-${id}`);
          }
          const blocks: [string, string, string, number][] = [["a", "b", "later", 2], ["a", "b", "first", 1], ["a", "b", "last", 3], ["a", "c", "only", 5], ["b", "a", "other way", 4]];
          for (const [blocker, blocked, reason, at] of blocks) await run("INSERT INTO blocks (blocker_id, blocked_id, reason, created_at) VALUES (?, ?, ?, ?)", blocker, blocked, reason, at);
        },
        async (run) => {
          const rows = await run("SELECT blocker_id AS blocker, blocked_id AS blocked, reason FROM blocks ORDER BY blocker_id, blocked_id");
          expect(rows).toEqual([
            { blocker: "a", blocked: "b", reason: "first" },
            { blocker: "a", blocked: "c", reason: "only" },
            { blocker: "b", blocked: "a", reason: "other way" },
          ]);
          await expect(run("INSERT INTO blocks (blocker_id, blocked_id, reason, created_at) VALUES ('a', 'b', 'again', 6)")).rejects.toThrow();
        },
      );
    });

    test(`${engine}: idempotency_acting_key keeps every stored key, as any key's of its agent`, async () => {
      await fromStepBefore(
        engine,
        "idempotency_acting_key",
        async (run) => {
          for (const [agent, key] of [["a", "k1"], ["a", "k2"], ["b", "k1"]]) {
            await run("INSERT INTO idempotency_keys (agent_id, key, request_hash, status, body, created_at) VALUES (?, ?, 'h', 201, '{}', 1)", agent, key);
          }
        },
        async (run) => {
          const rows = await run("SELECT agent_id AS agent, key, acting_key AS actingKey FROM idempotency_keys ORDER BY agent_id, key");
          expect(rows).toEqual([
            { agent: "a", key: "k1", actingKey: "any" },
            { agent: "a", key: "k2", actingKey: "any" },
            { agent: "b", key: "k1", actingKey: "any" },
          ]);
          // The same key of the agent, for another acting key, is another row; for the same one, a collision.
          await run("INSERT INTO idempotency_keys (agent_id, key, acting_key, request_hash, status, body, created_at) VALUES ('a', 'k1', 'agent', 'h', 201, '{}', 2)");
          await expect(run("INSERT INTO idempotency_keys (agent_id, key, acting_key, request_hash, status, body, created_at) VALUES ('a', 'k1', 'agent', 'h', 201, '{}', 3)")).rejects.toThrow();
          await expect(run("INSERT INTO idempotency_keys (agent_id, key, request_hash, status, body, created_at) VALUES ('a', 'k3', 'h', 201, '{}', 3)")).rejects.toThrow();
        },
      );
    });

    test(`${engine}: list_counts starts from the webhook deliveries and x402 payments already there`, async () => {
      await fromStepBefore(
        engine,
        "list_counts",
        async (run) => {
          for (const id of ["a", "b", "c"]) {
            await run("INSERT INTO agents (id, name, owner_name, owner_email, capabilities, api_key_hash, owner_key_hash, created_at) VALUES (?, ?, 'o', 'o@example.com', '[]', ?, ?, 1)", id, id, `api-${id}`, `owner-${id}`);
          }
          await run("INSERT INTO webhook_events (id, agent_id, event, data, status, created_at) VALUES ('e', 'a', 'payment.received', '{}', 'DELIVERED', 1)");
          for (const [id, agent] of [["d1", "a"], ["d2", "a"], ["d3", "b"]]) {
            await run("INSERT INTO webhook_deliveries (id, event_id, agent_id, event, url, outcome, duration_ms, created_at) VALUES (?, 'e', ?, 'payment.received', 'https://x.example', 'DELIVERED', 1, 1)", id, agent);
          }
          for (const id of ["p1", "p2", "p3"]) {
            await run("INSERT INTO x402_payments (id, agent_id, url, method, amount, currency, pay_to, network, x402_version, status, created_at, updated_at) VALUES (?, 'c', 'https://x.example', 'GET', 1, 'USDC', '0x1', 'eip155:84532', 2, 'SETTLED', 1, 1)", id);
          }
        },
        async (run) => {
          const rows = (await run("SELECT agent_id AS agent, list, items FROM list_counts ORDER BY agent_id, list")) as { agent: string; list: string; items: bigint | number }[];
          expect(rows.map((row) => ({ ...row, items: Number(row.items) }))).toEqual([
            { agent: "a", list: "webhook_deliveries", items: 2 },
            { agent: "b", list: "webhook_deliveries", items: 1 },
            { agent: "c", list: "x402_payments", items: 3 },
          ]);
        },
      );
    });
  }
});
