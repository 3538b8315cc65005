// The list pages that can grow large are index seeks, not walks: the statements the real code makes
// (stepped here without a database, their results made up) are planned by SQLite on the real schema
// (every migration applied to an empty database), and the plan must use the index named.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Op, Statement } from "../src/db/query";
import { applyMigrations, migrationMetas } from "../src/db/migrate";
import { sqliteMigrations } from "../src/db/migrations.generated";
import { inbox } from "../src/messaging/service";
import { type AgentId } from "../src/ids";

const db = new Database(":memory:", { safeIntegers: true, strict: true });
applyMigrations(drizzle({ client: db }), migrationMetas(sqliteMigrations));

/** The statements `query` yields, each answered with `answer(statement)`, until it returns. */
function statementsOf(query: Op<unknown>, answer: (statement: Statement) => unknown): Statement[] {
  const seen: Statement[] = [];
  let step = query.next();
  while (!step.done) {
    const statement = step.value as Statement;
    seen.push(statement);
    step = query.next(answer(statement));
  }
  return seen;
}

const planOf = (statement: Statement) =>
  (db.query(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(statement.params as never[])) as { detail: string }[]).map((row) => row.detail).join("\n");

/** The page's own SELECT (the one with LIMIT) of an inbox list. */
function inboxPage(filter: { unreadOnly?: boolean; type?: string }): Statement {
  const statements = statementsOf(inbox("agent-1" as AgentId, filter, { limit: 20, offset: 0 }), (statement) => (statement.mode === "all" ? [] : { n: 0n }));
  return statements.find((statement) => statement.sql.includes("LIMIT"))!;
}

describe("inbox pages are index seeks", () => {
  test("the whole inbox: by recipient", () => {
    expect(planOf(inboxPage({}))).toContain("USING INDEX messages_recipient_idx");
  });
  test("one type: by recipient and type, not a walk over the other types", () => {
    const plan = planOf(inboxPage({ type: "payment.received" }));
    expect(plan).toContain("USING INDEX messages_recipient_type_idx (recipient_id=? AND type=?)");
  });
  test("unread only: the partial index of unread messages", () => {
    expect(planOf(inboxPage({ unreadOnly: true }))).toContain("USING INDEX messages_unread_idx");
  });
});
