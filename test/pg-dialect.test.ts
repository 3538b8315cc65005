// The PostgreSQL engine's rewrite of the portable SQL features write (src/db/pg-dialect.ts): input SQL →
// the text PostgreSQL runs. No database needed.
import { describe, expect, test } from "bun:test";
import { toPostgres } from "../src/db/pg-dialect";
import { FOR_UPDATE, SKIP_LOCKED, type Op, type Statement } from "../src/db/query";
import { find, insert, insertNew, insertOnly, update } from "../src/db/table";
import { loans } from "../src/lending/schema";
import { x402Sales } from "../src/chain/schema";
import { x402Payments } from "../src/x402/schema";
import type { AgentId, LoanId } from "../src/ids";

const cases: [what: string, portable: string, postgres: string][] = [
  ["no placeholder: unchanged", "SELECT 1", "SELECT 1"],
  ["placeholders are numbered in order", "UPDATE accounts SET balance = balance + ? WHERE id = ?", "UPDATE accounts SET balance = balance + $1 WHERE id = $2"],
  ["two-digit numbers", `VALUES (${Array(12).fill("?").join(", ")})`, `VALUES (${Array.from({ length: 12 }, (_, i) => `$${i + 1}`).join(", ")})`],
  ["a list built for IN", "SELECT id FROM agents WHERE id IN (?, ?, ?)", "SELECT id FROM agents WHERE id IN ($1, $2, $3)"],
  ["? in a string literal stays", "SELECT '?' AS mark, ? AS value", "SELECT '?' AS mark, $1 AS value"],
  ["a doubled quote inside a literal", "SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"],
  ["? in a quoted identifier stays", 'SELECT "odd?" FROM t WHERE a = ?', 'SELECT "odd?" FROM t WHERE a = $1'],
  ["? in a line comment is not a placeholder", "-- which one?\nSELECT ?", "-- which one?\nSELECT $1"],
  ["? in a block comment is not a placeholder", "SELECT /* a? */ ?", "SELECT /* a? */ $1"],
  ["AS camelCase is quoted", "SELECT owner_name AS ownerName, created_at AS createdAt FROM agents", 'SELECT owner_name AS "ownerName", created_at AS "createdAt" FROM agents'],
  ["AS camelCase after a newline", "SELECT b.blocked_id AS\n  blockedId", 'SELECT b.blocked_id AS\n  "blockedId"'],
  ["AS camelCase with digits and underscores", "SELECT x AS step2Done, y AS lastTx_hash", 'SELECT x AS "step2Done", y AS "lastTx_hash"'],
  ["AS lower or snake_case: nothing to fold, unchanged", "SELECT COUNT(*) AS n, a AS owner_name", "SELECT COUNT(*) AS n, a AS owner_name"],
  ["an already quoted alias stays", 'SELECT a AS "ownerName"', 'SELECT a AS "ownerName"'],
  ["CAST(… AS BIGINT) stays", "SELECT CAST(SUM(amount) AS BIGINT) AS total", "SELECT CAST(SUM(amount) AS BIGINT) AS total"],
  ["a word ending in AS is not an alias", "SELECT hasMore FROM t", "SELECT hasMore FROM t"],
  ["AS camelCase inside a literal stays", "SELECT 'x AS fooBar' AS fooBar", `SELECT 'x AS fooBar' AS "fooBar"`],
  ["FOR_UPDATE becomes FOR NO KEY UPDATE", `SELECT id FROM bets WHERE id = ? ${FOR_UPDATE}`, "SELECT id FROM bets WHERE id = $1 FOR NO KEY UPDATE"],
  ["SKIP_LOCKED becomes FOR NO KEY UPDATE SKIP LOCKED", `SELECT id FROM webhook_events WHERE claimed_at IS NULL LIMIT ? ${SKIP_LOCKED}`, "SELECT id FROM webhook_events WHERE claimed_at IS NULL LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED"],
  ["a marker's text inside a literal stays", `SELECT '${FOR_UPDATE}'`, `SELECT '${FOR_UPDATE}'`],
  ["any other comment stays", "SELECT 1 /* why */", "SELECT 1 /* why */"],
  [
    "all at once",
    `SELECT id, created_at AS createdAt FROM loans WHERE status = 'ACTIVE?' AND borrower_id = ? ORDER BY id LIMIT ? ${FOR_UPDATE}`,
    `SELECT id, created_at AS "createdAt" FROM loans WHERE status = 'ACTIVE?' AND borrower_id = $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE`,
  ],
];

// Agents' ids as the checker knows them (src/ids.ts): these statements are only printed, never run.
const A = "a" as AgentId;
const B = "b" as AgentId;

describe("PostgreSQL dialect rewrite", () => {
  test.each(cases)("%s", (_what, portable, postgres) => {
    expect(toPostgres(portable)).toBe(postgres);
  });
});

/** The first statement a query yields, without running it. */
const statementOf = (query: Op<unknown>) => query.next().value as Statement;
const LOAN_COLUMNS_PG =
  'id, offer_id AS "offerId", lender_id AS "lenderId", borrower_id AS "borrowerId", principal, currency, interest_bps AS "interestBps", amount_due AS "amountDue", amount_repaid AS "amountRepaid", collateral, due_at AS "dueAt", status, key_id AS "keyId", created_at AS "createdAt", closed_at AS "closedAt"';

describe("the statements src/db/table.ts makes, as PostgreSQL runs them", () => {
  test("find: every camelCase field quoted, the lock a clause", () => {
    expect(toPostgres(statementOf(find(loans, "loan_1" as LoanId, true)).sql)).toBe(`SELECT ${LOAN_COLUMNS_PG} FROM loans WHERE id = $1 FOR NO KEY UPDATE`);
  });
  test("update: only the changed columns, the row returned under its fields", () => {
    const statement = statementOf(update(loans, "loan_1" as LoanId, { amountRepaid: 5n, status: "REPAID", closedAt: undefined }));
    expect(toPostgres(statement.sql)).toBe(`UPDATE loans SET amount_repaid = $1, status = $2 WHERE id = $3 RETURNING ${LOAN_COLUMNS_PG}`);
    expect(statement.params).toEqual([5n, "REPAID", "loan_1"]);
  });
  test("insert: the given columns, the row returned under its fields", () => {
    const statement = statementOf(
      insert(loans, { id: "l" as LoanId, offerId: "o", lenderId: A, borrowerId: B, principal: 1n, currency: "USD", interestBps: 0, amountDue: 1n, amountRepaid: 0n, collateral: 0n, dueAt: 9, status: "ACTIVE", createdAt: 1 }),
    );
    expect(toPostgres(statement.sql)).toStartWith(
      "INSERT INTO loans (id, offer_id, lender_id, borrower_id, principal, currency, interest_bps, amount_due, amount_repaid, collateral, due_at, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ",
    );
  });
  test("insertNew: the claim's unique key as the conflict target, nothing done on it", () => {
    const statement = statementOf(insertNew(x402Sales, { id: "s", agentId: A, payer: "0xp", nonce: "0xn", payTo: "0xt", amount: 1n, status: "SUBMITTING", gas: 0, createdAt: 1, updatedAt: 1 }, ["payer", "nonce"]));
    expect(toPostgres(statement.sql)).toContain(") ON CONFLICT (payer, nonce) DO NOTHING RETURNING id, agent_id AS \"agentId\",");
  });
  test("a column named by a keyword (transaction) is quoted wherever the layer names it", () => {
    expect(statementOf(find(x402Payments, "p")).sql).toContain(', "transaction", ');
    const statement = statementOf(update(x402Payments, "p", { transaction: "0xt" }));
    expect(statement.sql).toStartWith('UPDATE x402_payments SET "transaction" = ? WHERE id = ?');
  });
  // The texts are made once per table, kind and list of fields: each of these must still get its own.
  test("insertOnly: the same INSERT without RETURNING, after an insert of the same fields", () => {
    const row = { id: "l" as LoanId, offerId: "o", lenderId: A, borrowerId: B, principal: 1n, currency: "USD" as const, interestBps: 0, amountDue: 1n, amountRepaid: 0n, collateral: 0n, dueAt: 9, status: "ACTIVE", createdAt: 1 };
    expect(statementOf(insert(loans, row)).sql).toContain(" RETURNING ");
    const statement = statementOf(insertOnly(loans, { ...row, id: "m" as LoanId }));
    expect(toPostgres(statement.sql)).toBe(
      "INSERT INTO loans (id, offer_id, lender_id, borrower_id, principal, currency, interest_bps, amount_due, amount_repaid, collateral, due_at, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    );
    expect(statement.params).toEqual(["m", "o", "a", "b", 1n, "USD", 0, 1n, 0n, 0n, 9, "ACTIVE", 1]);
  });
  test("update: another list of changed columns, another statement; an unknown field throws even when undefined", () => {
    expect(statementOf(update(loans, "loan_1" as LoanId, { status: "REPAID" })).sql).toStartWith("UPDATE loans SET status = ? WHERE id = ?");
    expect(statementOf(update(loans, "loan_1" as LoanId, { closedAt: 7 })).sql).toStartWith("UPDATE loans SET closed_at = ? WHERE id = ?");
    expect(() => statementOf(update(loans, "loan_1" as LoanId, { status: "REPAID", nope: undefined } as never))).toThrow("loans has no column nope");
  });
});
