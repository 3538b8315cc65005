// Escrow holds are ledger records: every open hold of every feature is a PENDING row, closed once when
// its money moves; the ledger check compares each agent's held balance with its PENDING holds; and the
// migration that introduced them rebuilds them from the open feature records (LEGACY for the rest).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { directDatabase } from "./helpers/database";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
/** Runs SQL directly on the test server's database (SQLite file or PostgreSQL database): to corrupt it on purpose. */
let execute: (sql: string) => Promise<Record<string, unknown>[]>;
let disconnect: () => void;

beforeAll(async () => {
  server = await startServer();
  ({ execute, close: disconnect } = directDatabase(server));
});
afterAll(async () => {
  disconnect();
  await server.close();
});

async function agent(fund: number): Promise<Agent> {
  const created = await server.register();
  await server.deposit(created.id, fund);
  return created;
}

const ok = (reply: { status: number; body: any }) => {
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
};

type HoldRow = { agentId: string; amount: number; purpose: string; state: string; referenceType: string };

async function holdsOf(who: Agent): Promise<HoldRow[]> {
  const rows = await execute(
    `SELECT agent_id AS "agentId", amount, purpose, state, reference_type AS "referenceType" FROM holds WHERE agent_id = '${who.id}' ORDER BY id`,
  );
  return rows.map((row) => ({ ...(row as HoldRow), amount: Number(row.amount) }));
}

/** One agent of each kind of open hold: a loan offer, a loan's collateral, both stakes of a bet, a contract, an approval. */
async function everyKindOfHold() {
  const lender = await agent(1000);
  const borrower = await agent(100);
  const bettor = await agent(100);
  const taker = await agent(100);
  const creator = await agent(100);
  const waiting = await agent(100);
  const taken = ok(await server.request("POST", "/lending/offers", { key: lender.apiKey, body: { amount: 80, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50 } }));
  ok(await server.request("POST", "/lending/offers", { key: lender.apiKey, body: { amount: 60, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 0 } }));
  ok(await server.request("POST", "/lending/borrow", { key: borrower.apiKey, body: { offerId: taken.id } }));
  const bet = ok(await server.request("POST", "/betting", { key: bettor.apiKey, body: { description: "Final", condition: "A wins", amount: 10, currency: "USDC" } }));
  ok(await server.request("POST", `/betting/${bet.id}/accept`, { key: taker.apiKey }));
  ok(
    await server.request("POST", "/contracts", {
      key: creator.apiKey,
      body: { counterpartyId: waiting.id, title: "Data", description: "Rows", escrowAmount: 40, currency: "USDC", conditions: [{ id: "deliver", type: "DELIVERY", description: "Deliver", params: {} }] },
    }),
  );
  ok(await server.request("PUT", "/owner/policy", { key: waiting.ownerKey, body: { approvalAbove: { USDC: 20 } } }));
  expect(ok(await server.request("POST", "/payments/send", { key: waiting.apiKey, body: { toAgentId: creator.id, amount: 30, currency: "USDC" } }))).toMatchObject({ status: "AWAITING_APPROVAL" });
  return { lender, borrower, bettor, taker, creator, waiting, bet };
}

describe("holds", () => {
  test("every feature's escrow is a PENDING hold with its purpose, closed once when the money moves", async () => {
    const { lender, borrower, bettor, taker, creator, waiting, bet } = await everyKindOfHold();
    expect(await holdsOf(lender)).toEqual([
      { agentId: lender.id, amount: 80_000_000, purpose: "LOAN_OFFER", state: "POSTED", referenceType: "loan_offer" },
      { agentId: lender.id, amount: 60_000_000, purpose: "LOAN_OFFER", state: "PENDING", referenceType: "loan_offer" },
    ]);
    expect(await holdsOf(borrower)).toMatchObject([{ purpose: "LOAN_COLLATERAL", state: "PENDING", referenceType: "loan", amount: 40_000_000 }]);
    expect(await holdsOf(creator)).toMatchObject([{ purpose: "CONTRACT_ESCROW", state: "PENDING", referenceType: "contract" }]);
    expect(await holdsOf(waiting)).toMatchObject([{ purpose: "APPROVAL", state: "PENDING", referenceType: "approval" }]);
    ok(await server.admin("POST", `/admin/bets/${bet.id}/resolve`, { outcome: "MET" }));
    // The winner's own stake comes back (VOIDED); the loser's is paid to the winner (POSTED).
    expect(await holdsOf(bettor)).toMatchObject([{ purpose: "BET_STAKE", state: "VOIDED" }]);
    expect(await holdsOf(taker)).toMatchObject([{ purpose: "BET_STAKE", state: "POSTED" }]);
    const check = await server.ledgerCheck();
    expect(check.holds).toEqual({ ok: true, mismatches: [] });
    await expectLedgerOk(server);
  });

  test("a hold that no longer matches the held balance makes the check fail, naming the agent", async () => {
    const { creator } = await everyKindOfHold();
    await execute(`UPDATE holds SET amount = amount + 1000000 WHERE agent_id = '${creator.id}' AND state = 'PENDING'`);
    const check = await server.ledgerCheck();
    expect(check.ok).toBe(false);
    expect(check.holds).toEqual({ ok: false, mismatches: [{ agentId: creator.id, currency: "USDC", held: 40, pendingHolds: 41 }] });
    await execute(`UPDATE holds SET amount = amount - 1000000 WHERE agent_id = '${creator.id}' AND state = 'PENDING'`);
    await expectLedgerOk(server);
  });

  test("the migration's data statements rebuild the PENDING holds from the open records, the rest as LEGACY", async () => {
    const { lender, borrower, bettor, taker, creator, waiting } = await everyKindOfHold();
    const before = await Promise.all([lender, borrower, bettor, taker, creator, waiting].map(pendingOf));
    // Data as it was before holds existed, with one offer's record no longer explaining its held money.
    await execute("DELETE FROM holds");
    await execute(`UPDATE loan_offers SET status = 'CANCELLED' WHERE lender_id = '${lender.id}' AND status = 'OPEN'`);
    const migration = await Bun.file(join(import.meta.dir, "..", "migrations", TEST_POSTGRES ? "pg/0006_holds.sql" : "sqlite/0009_holds.sql")).text();
    const inserts = migration.split("--> statement-breakpoint").map((chunk) => chunk.replace(/^--.*$/gm, "").trim()).filter((chunk) => chunk.startsWith("INSERT"));
    expect(inserts).toHaveLength(7);
    for (const statement of inserts) await execute(statement);
    await expectLedgerOk(server);
    expect(await pendingOf(lender)).toEqual([{ purpose: "LEGACY", amount: 60_000_000 }]);
    expect((await Promise.all([borrower, bettor, taker, creator, waiting].map(pendingOf)))).toEqual(before.slice(1));
  });
});

async function pendingOf(who: Agent) {
  return (await holdsOf(who)).filter((row) => row.state === "PENDING").map(({ purpose, amount }) => ({ purpose, amount }));
}
