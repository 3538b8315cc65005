import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const DAY = 86_400;
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const offer = (lender: Agent, body: Record<string, unknown> = {}) =>
  server.request("POST", "/lending/offers", { key: lender.apiKey, body: { amount: 100, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50, ...body } });
const borrow = (borrower: Agent, body: Record<string, unknown>) => server.request("POST", "/lending/borrow", { key: borrower.apiKey, body });
const repay = (borrower: Agent, loanId: string, amount: number) => server.request("POST", `/lending/repay/${loanId}`, { key: borrower.apiKey, body: { amount } });
const score = async (agent: Agent) => (await server.request("GET", `/agents/${agent.id}/reputation`)).body;

async function parties(lenderFunds = 200, borrowerFunds = 100): Promise<[Agent, Agent]> {
  const lender = await server.register();
  const borrower = await server.register();
  if (lenderFunds) await server.deposit(lender.id, lenderFunds);
  if (borrowerFunds) await server.deposit(borrower.id, borrowerFunds);
  return [lender, borrower];
}

describe("lending", () => {
  test("offer → borrow → partial and full repayment, with exact balances at every step", async () => {
    const [lender, borrower] = await parties();
    const created = await offer(lender);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ lenderId: lender.id, amount: 100, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50, collateralRequired: 50, amountDue: 105, status: "OPEN" });
    expect(created.body.id).toMatch(/^lo_/);
    expect(await server.balance(lender)).toEqual({ available: 100, held: 100 });
    const listed = (await server.request("GET", "/lending/offers?currency=USDC&limit=100", { key: borrower.apiKey })).body;
    expect(listed.data.map((o: { id: string }) => o.id)).toContain(created.body.id);

    const taken = await borrow(borrower, { offerId: created.body.id, collateral: 50 });
    expect(taken.status).toBe(200);
    const loan = taken.body;
    expect(loan).toMatchObject({ offerId: created.body.id, lenderId: lender.id, borrowerId: borrower.id, principal: 100, amountDue: 105, amountRepaid: 0, outstanding: 105, collateral: 50, status: "ACTIVE" });
    expect(loan.id).toMatch(/^loan_/);
    expect(await server.balance(lender)).toEqual({ available: 100, held: 0 });
    expect(await server.balance(borrower)).toEqual({ available: 150, held: 50 });
    expect((await server.request("GET", "/lending/offers?limit=100", { key: borrower.apiKey })).body.data.map((o: { id: string }) => o.id)).not.toContain(created.body.id);

    const partial = await repay(borrower, loan.id, 40);
    expect(partial.body).toMatchObject({ amountRepaid: 40, outstanding: 65, status: "ACTIVE" });
    expect(await server.balance(borrower)).toEqual({ available: 110, held: 50 });
    expect(await server.balance(lender)).toEqual({ available: 140, held: 0 });
    expect((await repay(borrower, loan.id, 65.01)).status).toBe(400);
    const full = await repay(borrower, loan.id, 65);
    expect(full.body).toMatchObject({ amountRepaid: 105, outstanding: 0, status: "REPAID" });
    expect(await server.balance(borrower)).toEqual({ available: 95, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 205, held: 0 });
    expect((await score(borrower)).score).toBe(5);
    expect((await score(borrower)).events[0]).toMatchObject({ reason: "LOAN_REPAID_ON_TIME", change: 5 });

    expect((await repay(borrower, loan.id, 1)).status).toBe(409);
    expect((await borrow(borrower, { offerId: created.body.id })).status).toBe(409);
    const history = (await server.request("GET", "/wallets/history", { key: borrower.apiKey })).body.data.map((e: { type: string }) => e.type);
    expect(history).toEqual(expect.arrayContaining(["LOAN_DISBURSED", "LOAN_REPAYMENT", "ESCROW_HOLD", "ESCROW_RELEASE"]));
    const kinds = (await server.request("GET", "/messages/inbox?type=notification.financial&limit=50", { key: lender.apiKey })).body.data.map((m: { metadata: { kind: string } }) => m.metadata.kind);
    expect(kinds).toEqual(expect.arrayContaining(["loan.taken", "loan.repayment", "loan.repaid"]));
    for (const agent of [lender, borrower]) expect((await server.request("GET", `/lending/loans/${loan.id}`, { key: agent.apiKey })).body.status).toBe("REPAID");
    await expectLedgerOk(server);
  });

  test("a loan not repaid by dueAt DEFAULTS: collateral to the lender, −10 to the borrower", async () => {
    const [lender, borrower] = await parties();
    const created = (await offer(lender, { amount: 60, durationDays: 2, collateralPercent: 100, interestRate: 10 })).body;
    const loan = (await borrow(borrower, { offerId: created.id })).body;
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 60 });
    await repay(borrower, loan.id, 6);
    await server.advance(2 * DAY - 10);
    expect((await server.request("GET", `/lending/loans/${loan.id}`, { key: borrower.apiKey })).body.status).toBe("ACTIVE");
    await server.advance(10);
    const defaulted = (await server.request("GET", `/lending/loans/${loan.id}`, { key: lender.apiKey })).body;
    expect(defaulted).toMatchObject({ status: "DEFAULTED", amountRepaid: 6, outstanding: 60 });
    expect(await server.balance(borrower)).toEqual({ available: 94, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 140 + 6 + 60, held: 0 });
    expect(await score(borrower)).toMatchObject({ score: -10, tier: "UNRATED" });
    expect((await repay(borrower, loan.id, 1)).status).toBe(409);
    await expectLedgerOk(server);
  });

  test("an OPEN offer EXPIRES with its amount returned; a cancelled offer too", async () => {
    const [lender, borrower] = await parties();
    const expiring = (await offer(lender, { amount: 50, expiresInHours: 1 })).body;
    const cancelled = (await offer(lender, { amount: 30 })).body;
    expect(await server.balance(lender)).toEqual({ available: 120, held: 80 });
    const stranger = await server.register();
    expect((await server.request("DELETE", `/lending/offers/${cancelled.id}`, { key: stranger.apiKey })).status).toBe(404);
    const gone = await server.request("DELETE", `/lending/offers/${cancelled.id}`, { key: lender.apiKey });
    expect(gone.body.status).toBe("CANCELLED");
    expect((await server.request("DELETE", `/lending/offers/${cancelled.id}`, { key: lender.apiKey })).status).toBe(409);
    await server.advance(3601);
    expect(await server.balance(lender)).toEqual({ available: 200, held: 0 });
    const late = await borrow(borrower, { offerId: expiring.id });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("INVALID_STATE");
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  });

  test("refusals hold nothing: own offer 400, not enough collateral 400, block 403, wrong collateral 400, tier 403", async () => {
    const [lender, borrower] = await parties(300, 10);
    const created = (await offer(lender, { amount: 100, collateralPercent: 50 })).body;
    expect((await borrow(lender, { offerId: created.id })).status).toBe(400);
    const poor = await borrow(borrower, { offerId: created.id });
    expect(poor.status).toBe(400);
    expect(poor.body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(borrower)).toEqual({ available: 10, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 200, held: 100 });
    await server.deposit(borrower.id, 100);
    expect((await borrow(borrower, { offerId: created.id, collateral: 49 })).status).toBe(400);
    await server.request("POST", "/agents/me/block", { key: lender.apiKey, body: { agentId: borrower.id } });
    expect((await borrow(borrower, { offerId: created.id })).status).toBe(403);
    expect(await server.balance(borrower)).toEqual({ available: 110, held: 0 });
    expect((await offer(lender, { amount: 100.01 })).body.error).toBe("TIER_LIMIT_EXCEEDED");
    const broke = await server.register();
    expect((await offer(broke, { amount: 5 })).body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(broke)).toEqual({ available: 0, held: 0 });
    await expectLedgerOk(server);
  });

  test("non-parties get 404; lists by role", async () => {
    const [lender, borrower] = await parties();
    const loan = (await borrow(borrower, { offerId: (await offer(lender, { amount: 10, collateralPercent: 0 })).body.id })).body;
    const stranger = await server.register();
    expect((await server.request("GET", `/lending/loans/${loan.id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await repay(stranger, loan.id, 1)).status).toBe(404);
    expect((await repay(lender, loan.id, 1)).status).toBe(404);
    expect((await server.request("GET", "/lending/my-loans?role=lender", { key: lender.apiKey })).body.pagination.total).toBe(1);
    expect((await server.request("GET", "/lending/my-loans?role=borrower", { key: lender.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/lending/my-loans", { key: borrower.apiKey })).body.data[0].id).toBe(loan.id);
    expect((await server.request("GET", "/lending/loans/loan_nope", { key: lender.apiKey })).status).toBe(404);
    expect((await borrow(borrower, { offerId: "lo_nope" })).status).toBe(404);
  });

  const badOffers: [string, Record<string, unknown>][] = [
    ["interestRate over 100", { interestRate: 101 }],
    ["interestRate with 3 decimals", { interestRate: 5.125 }],
    ["negative interestRate", { interestRate: -1 }],
    ["durationDays 0", { durationDays: 0 }],
    ["durationDays 366", { durationDays: 366 }],
    ["durationDays not whole", { durationDays: 1.5 }],
    ["durationDays as a string", { durationDays: "30" }],
    ["collateralPercent over 200", { collateralPercent: 201 }],
    ["amount with 3 decimals in EUR", { amount: 1.001, currency: "EUR" }],
    ["unknown currency", { currency: "ABC" }],
    ["expiresInHours 0", { expiresInHours: 0 }],
    ["unknown field", { note: "x" }],
  ];
  test.each(badOffers)("offer with %s → 400 and nothing held", async (_, body) => {
    const [lender] = await parties(200, 0);
    const reply = await offer(lender, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(await server.balance(lender)).toEqual({ available: 200, held: 0 });
  });

  test("bad borrow and repay bodies → 400", async () => {
    const [lender, borrower] = await parties();
    const loan = (await borrow(borrower, { offerId: (await offer(lender, { amount: 10 })).body.id })).body;
    for (const body of [{}, { offerId: "" }, { offerId: 1 }, { offerId: "lo_x", extra: true }]) expect((await borrow(borrower, body)).status).toBe(400);
    for (const amount of [0, -1, 1.0000001, Number.NaN]) expect((await server.request("POST", `/lending/repay/${loan.id}`, { key: borrower.apiKey, body: { amount } })).status).toBe(400);
    expect((await server.request("GET", "/lending/my-loans?role=owner", { key: borrower.apiKey })).status).toBe(400);
  });
});
