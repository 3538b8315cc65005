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
const cancel = (agent: Agent, offerId: string) => server.request("DELETE", `/lending/offers/${offerId}`, { key: agent.apiKey });
const borrow = (borrower: Agent, body: Record<string, unknown>) => server.request("POST", "/lending/borrow", { key: borrower.apiKey, body });
const repay = (borrower: Agent, loanId: string, amount: unknown) => server.request("POST", `/lending/repay/${loanId}`, { key: borrower.apiKey, body: { amount } });
const getLoan = async (agent: Agent, loanId: string) => (await server.request("GET", `/lending/loans/${loanId}`, { key: agent.apiKey })).body;
const openOfferIds = async (agent: Agent) =>
  (await server.request("GET", "/lending/offers?limit=100", { key: agent.apiKey })).body.data.map((o: { id: string }) => o.id);
const reputation = async (agent: Agent) => (await server.request("GET", `/agents/${agent.id}/reputation`)).body;
const kinds = async (agent: Agent) =>
  (await server.request("GET", "/messages/inbox?type=notification.financial&limit=100", { key: agent.apiKey })).body.data.map((m: { metadata: { kind: string } }) => m.metadata.kind);

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
    // 80 at 5 %: the borrower (UNRATED, 100 USD per transaction) may owe 84.
    const created = await offer(lender, { amount: 80 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ lenderId: lender.id, amount: 80, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50, collateralRequired: 40, amountDue: 84, status: "OPEN" });
    expect(created.body.id).toMatch(/^lo_/);
    expect(await server.balance(lender)).toEqual({ available: 120, held: 80 });
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 0 });
    const listed = (await server.request("GET", "/lending/offers?currency=USDC&limit=100", { key: borrower.apiKey })).body;
    expect(listed.data.map((o: { id: string }) => o.id)).toContain(created.body.id);
    expect((await server.request("GET", "/lending/offers?currency=EUR&limit=100", { key: borrower.apiKey })).body.data.map((o: { id: string }) => o.id)).not.toContain(created.body.id);

    const taken = await borrow(borrower, { offerId: created.body.id, collateral: 40 });
    expect(taken.status).toBe(200);
    const loan = taken.body;
    expect(loan).toMatchObject({ offerId: created.body.id, lenderId: lender.id, borrowerId: borrower.id, principal: 80, amountDue: 84, amountRepaid: 0, outstanding: 84, collateral: 40, status: "ACTIVE" });
    expect(loan.id).toMatch(/^loan_/);
    expect(Date.parse(loan.dueAt) - Date.parse(loan.createdAt)).toBe(30 * DAY * 1000);
    expect(await server.balance(lender)).toEqual({ available: 120, held: 0 });
    expect(await server.balance(borrower)).toEqual({ available: 140, held: 40 });
    expect(await openOfferIds(borrower)).not.toContain(created.body.id);

    const partial = await repay(borrower, loan.id, 40);
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ amountRepaid: 40, outstanding: 44, status: "ACTIVE" });
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 40 });
    expect(await server.balance(lender)).toEqual({ available: 160, held: 0 });
    expect((await repay(borrower, loan.id, 44.01)).body.error).toBe("VALIDATION_ERROR");
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 40 });
    const full = await repay(borrower, loan.id, 44);
    expect(full.body).toMatchObject({ amountRepaid: 84, outstanding: 0, status: "REPAID" });
    expect(await server.balance(borrower)).toEqual({ available: 96, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 204, held: 0 });
    expect(await reputation(borrower)).toMatchObject({ score: 5, tier: "BRONZE" });
    expect((await reputation(borrower)).events[0]).toMatchObject({ reason: "LOAN_REPAID_ON_TIME", change: 5 });
    expect((await reputation(lender)).score).toBe(0);

    const history = (await server.request("GET", "/wallets/history", { key: borrower.apiKey })).body.data.map((e: { type: string }) => e.type);
    expect(history).toEqual(expect.arrayContaining(["LOAN_DISBURSED", "LOAN_REPAYMENT", "ESCROW_HOLD", "ESCROW_RELEASE"]));
    expect(await kinds(lender)).toEqual(expect.arrayContaining(["loan.taken", "loan.repayment", "loan.repaid"]));
    expect(await kinds(borrower)).toEqual(expect.arrayContaining(["loan.disbursed", "loan.repayment", "loan.repaid"]));
    for (const agent of [lender, borrower]) expect((await getLoan(agent, loan.id)).status).toBe("REPAID");
    await expectLedgerOk(server);
  });

  test("a loan not repaid by dueAt DEFAULTS: collateral to the lender, −10 to the borrower", async () => {
    const [lender, borrower] = await parties();
    const created = (await offer(lender, { amount: 60, durationDays: 2, collateralPercent: 100, interestRate: 10 })).body;
    expect(await server.balance(lender)).toEqual({ available: 140, held: 60 });
    const loan = (await borrow(borrower, { offerId: created.id })).body;
    expect(loan).toMatchObject({ principal: 60, amountDue: 66, collateral: 60 });
    expect(await server.balance(lender)).toEqual({ available: 140, held: 0 });
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 60 });
    await repay(borrower, loan.id, 6);
    expect(await server.balance(borrower)).toEqual({ available: 94, held: 60 });
    expect(await server.balance(lender)).toEqual({ available: 146, held: 0 });
    await server.advance(2 * DAY - 10);
    expect((await getLoan(borrower, loan.id)).status).toBe("ACTIVE");
    await server.advance(10);
    expect(await getLoan(lender, loan.id)).toMatchObject({ status: "DEFAULTED", amountRepaid: 6, outstanding: 60 });
    expect(await server.balance(borrower)).toEqual({ available: 94, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 206, held: 0 });
    expect(await reputation(borrower)).toMatchObject({ score: -10, tier: "UNRATED" });
    expect((await reputation(borrower)).events[0]).toMatchObject({ reason: "LOAN_DEFAULT", change: -10 });
    expect((await reputation(lender)).score).toBe(0);
    const late = await repay(borrower, loan.id, 1);
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("INVALID_STATE");
    expect(await server.balance(borrower)).toEqual({ available: 94, held: 0 });
    for (const agent of [lender, borrower]) expect(await kinds(agent)).toContain("loan.defaulted");
    expect((await server.request("GET", "/lending/my-loans?role=borrower", { key: borrower.apiKey })).body.data[0]).toMatchObject({ id: loan.id, status: "DEFAULTED" });
    await expectLedgerOk(server);
  });

  test("an OPEN offer EXPIRES at expiresAt with its amount returned; a cancelled offer too", async () => {
    const [lender, borrower] = await parties();
    const expiring = (await offer(lender, { amount: 50, expiresInHours: 1 })).body;
    const cancelled = (await offer(lender, { amount: 30 })).body;
    expect(await server.balance(lender)).toEqual({ available: 120, held: 80 });
    const stranger = await server.register();
    expect((await cancel(stranger, cancelled.id)).status).toBe(404);
    const gone = await cancel(lender, cancelled.id);
    expect(gone.status).toBe(200);
    expect(gone.body.status).toBe("CANCELLED");
    expect(await server.balance(lender)).toEqual({ available: 150, held: 50 });
    expect(await openOfferIds(borrower)).not.toContain(cancelled.id);
    await server.advance(3590);
    expect(await openOfferIds(borrower)).toContain(expiring.id);
    await server.advance(10);
    expect(await server.balance(lender)).toEqual({ available: 200, held: 0 });
    expect(await openOfferIds(borrower)).not.toContain(expiring.id);
    expect(await kinds(lender)).toEqual(expect.arrayContaining(["loan_offer.cancelled", "loan_offer.expired"]));
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  });

  test("each state's illegal actions answer 409 INVALID_STATE and move nothing", async () => {
    const [lender, borrower] = await parties(300, 200);
    const taken = (await offer(lender, { amount: 10, collateralPercent: 0 })).body;
    const loan = (await borrow(borrower, { offerId: taken.id })).body;
    const cancelled = (await offer(lender, { amount: 10 })).body;
    await cancel(lender, cancelled.id);
    const expired = (await offer(lender, { amount: 10, expiresInHours: 1 })).body;
    await server.advance(3600);
    await repay(borrower, loan.id, 10.5);
    const before = [await server.balance(lender), await server.balance(borrower)];
    expect(before).toEqual([{ available: 300.5, held: 0 }, { available: 199.5, held: 0 }]);
    for (const [state, id] of [["TAKEN", taken.id], ["CANCELLED", cancelled.id], ["EXPIRED", expired.id]]) {
      for (const reply of [await cancel(lender, id!), await borrow(borrower, { offerId: id })]) {
        expect(reply.status).toBe(409);
        expect(reply.body).toMatchObject({ error: "INVALID_STATE", message: `the offer is ${state}` });
      }
    }
    const repaid = await repay(borrower, loan.id, 0.01);
    expect(repaid.body).toMatchObject({ error: "INVALID_STATE", message: "the loan is REPAID" });
    expect([await server.balance(lender), await server.balance(borrower)]).toEqual(before);
    await expectLedgerOk(server);
  });

  test("refusals hold nothing: own offer 400, not enough collateral 400, block 403, wrong collateral 400, tier 403", async () => {
    const [lender, borrower] = await parties(300, 10);
    const created = (await offer(lender, { amount: 80, collateralPercent: 50 })).body;
    expect((await borrow(lender, { offerId: created.id })).body.error).toBe("VALIDATION_ERROR");
    const poor = await borrow(borrower, { offerId: created.id });
    expect(poor.status).toBe(400);
    expect(poor.body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(borrower)).toEqual({ available: 10, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 220, held: 80 });
    await server.deposit(borrower.id, 100);
    expect((await borrow(borrower, { offerId: created.id, collateral: 39 })).body.error).toBe("VALIDATION_ERROR");
    // The tier limit applies to what the borrower would owe: 100 at 5 % is 105, above UNRATED's 100.
    const owesTooMuch = (await offer(lender, { amount: 100 })).body;
    expect((await borrow(borrower, { offerId: owesTooMuch.id })).body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect((await cancel(lender, owesTooMuch.id)).status).toBe(200);
    expect((await server.request("POST", "/agents/me/block", { key: lender.apiKey, body: { agentId: borrower.id } })).status).toBe(200);
    const blocked = await borrow(borrower, { offerId: created.id, collateral: 40 });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toBe("FORBIDDEN");
    expect(await server.balance(borrower)).toEqual({ available: 110, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 220, held: 80 });
    expect(await openOfferIds(borrower)).toContain(created.id);
    expect((await offer(lender, { amount: 100.01 })).body.error).toBe("TIER_LIMIT_EXCEEDED");
    const broke = await server.register();
    expect((await offer(broke, { amount: 5 })).body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(broke)).toEqual({ available: 0, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 220, held: 80 });
    await expectLedgerOk(server);
  });

  test("a repayment the borrower cannot afford is 400 INSUFFICIENT_BALANCE; the held collateral is not spent", async () => {
    const [lender, borrower] = await parties(80, 40);
    const loan = (await borrow(borrower, { offerId: (await offer(lender, { amount: 80, interestRate: 10 })).body.id })).body;
    expect(await server.balance(borrower)).toEqual({ available: 80, held: 40 });
    const short = await repay(borrower, loan.id, 88);
    expect(short.status).toBe(400);
    expect(short.body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(borrower)).toEqual({ available: 80, held: 40 });
    expect(await server.balance(lender)).toEqual({ available: 0, held: 0 });
    expect(await getLoan(borrower, loan.id)).toMatchObject({ amountRepaid: 0, outstanding: 88, status: "ACTIVE" });
    expect((await repay(borrower, loan.id, 80)).body).toMatchObject({ outstanding: 8, status: "ACTIVE" });
    expect(await server.balance(lender)).toEqual({ available: 80, held: 0 });
    await expectLedgerOk(server);
  });

  test("interest and collateral round UP to the minor unit; collateral 0 holds nothing", async () => {
    const lender = await server.register();
    const borrower = await server.register();
    await server.deposit(lender.id, 50, "USD");
    await server.deposit(borrower.id, 20, "USD");
    const created = (await offer(lender, { amount: 33.33, currency: "USD", interestRate: 3.33, collateralPercent: 33.33 })).body;
    // 33.33 × 3.33 % = 1.109889 and 33.33 × 33.33 % = 11.108889, both rounded up to the cent.
    expect(created).toMatchObject({ amountDue: 34.44, collateralRequired: 11.11 });
    const loan = (await borrow(borrower, { offerId: created.id, collateral: 11.11 })).body;
    expect(loan).toMatchObject({ principal: 33.33, amountDue: 34.44, collateral: 11.11, currency: "USD" });
    expect(await server.balance(borrower, "USD")).toEqual({ available: 42.22, held: 11.11 });
    expect(await server.balance(lender, "USD")).toEqual({ available: 16.67, held: 0 });
    expect((await repay(borrower, loan.id, 34.44)).body.status).toBe("REPAID");
    expect(await server.balance(borrower, "USD")).toEqual({ available: 18.89, held: 0 });
    expect(await server.balance(lender, "USD")).toEqual({ available: 51.11, held: 0 });

    const free = (await offer(lender, { amount: 10, currency: "USD", interestRate: 0, collateralPercent: 0 })).body;
    expect((await borrow(borrower, { offerId: free.id })).body).toMatchObject({ collateral: 0, amountDue: 10 });
    expect(await server.balance(borrower, "USD")).toEqual({ available: 28.89, held: 0 });
    await expectLedgerOk(server);
  });

  test("non-parties get 404 and move nothing; my-loans filters by role", async () => {
    const [lender, borrower] = await parties();
    const loan = (await borrow(borrower, { offerId: (await offer(lender, { amount: 10, collateralPercent: 0 })).body.id })).body;
    const stranger = await server.register();
    await server.deposit(stranger.id, 50);
    expect((await server.request("GET", `/lending/loans/${loan.id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await repay(stranger, loan.id, 1)).body.error).toBe("NOT_FOUND");
    expect((await repay(lender, loan.id, 1)).body.error).toBe("NOT_FOUND");
    expect(await server.balance(stranger)).toEqual({ available: 50, held: 0 });
    expect(await getLoan(borrower, loan.id)).toMatchObject({ amountRepaid: 0, status: "ACTIVE" });
    expect((await server.request("GET", "/lending/my-loans?role=lender", { key: lender.apiKey })).body.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect((await server.request("GET", "/lending/my-loans?role=borrower", { key: lender.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/lending/my-loans", { key: borrower.apiKey })).body.data[0].id).toBe(loan.id);
    expect((await server.request("GET", "/lending/my-loans", { key: stranger.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/lending/loans/loan_nope", { key: lender.apiKey })).status).toBe(404);
    expect((await borrow(borrower, { offerId: "lo_nope" })).status).toBe(404);
    expect((await cancel(lender, "lo_nope")).status).toBe(404);
    await expectLedgerOk(server);
  });

  const badOffers: [string, Record<string, unknown>][] = [
    ["amount missing", { amount: undefined }],
    ["amount 0", { amount: 0 }],
    ["amount as a string", { amount: "10" }],
    ["interestRate over 100", { interestRate: 101 }],
    ["interestRate with 3 decimals", { interestRate: 5.125 }],
    ["negative interestRate", { interestRate: -1 }],
    ["interestRate as a string", { interestRate: "5" }],
    ["durationDays 0", { durationDays: 0 }],
    ["durationDays 366", { durationDays: 366 }],
    ["durationDays not whole", { durationDays: 1.5 }],
    ["durationDays as a string", { durationDays: "30" }],
    ["collateralPercent over 200", { collateralPercent: 201 }],
    ["negative collateralPercent", { collateralPercent: -1 }],
    ["amount with 3 decimals in EUR", { amount: 1.001, currency: "EUR" }],
    ["unknown currency", { currency: "ABC" }],
    ["expiresInHours 0", { expiresInHours: 0 }],
    ["expiresInHours over a year", { expiresInHours: 8761 }],
    ["unknown field", { note: "x" }],
  ];
  test.each(badOffers)("offer with %s → 400 and nothing held", async (_, body) => {
    const [lender] = await parties(200, 0);
    const reply = await offer(lender, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(await server.balance(lender)).toEqual({ available: 200, held: 0 });
  });

  test("bad input on every other route → 400 VALIDATION_ERROR and nothing changed", async () => {
    const [lender, borrower] = await parties();
    const open = (await offer(lender, { amount: 10 })).body;
    const loan = (await borrow(borrower, { offerId: (await offer(lender, { amount: 10 })).body.id })).body;
    const balances = async () => [await server.balance(lender), await server.balance(borrower)];
    const before = await balances();
    const long = "x".repeat(65);
    const replies = [
      ...(await Promise.all(
        [{}, { offerId: "" }, { offerId: 1 }, { offerId: long }, { offerId: open.id, extra: true }, { offerId: open.id, collateral: 0 }, { offerId: open.id, collateral: "5" }].map((body) => borrow(borrower, body)),
      )),
      ...(await Promise.all([0, -1, 1.0000001, "1", null, 1e10].map((amount) => repay(borrower, loan.id, amount)))),
      await server.request("POST", `/lending/repay/${loan.id}`, { key: borrower.apiKey, body: { amount: 1, extra: 1 } }),
      await repay(borrower, long, 1),
      await cancel(lender, long),
      await server.request("GET", `/lending/loans/${long}`, { key: borrower.apiKey }),
      ...(await Promise.all(
        ["currency=ABC", "limit=0", "limit=101", "offset=-1", "limit=x"].map((query) => server.request("GET", `/lending/offers?${query}`, { key: borrower.apiKey })),
      )),
      ...(await Promise.all(["role=owner", "limit=0", "offset=-1"].map((query) => server.request("GET", `/lending/my-loans?${query}`, { key: borrower.apiKey })))),
    ];
    for (const reply of replies) expect([reply.status, reply.body.error]).toEqual([400, "VALIDATION_ERROR"]);
    expect(await balances()).toEqual(before);
    expect(await openOfferIds(borrower)).toContain(open.id);
    expect(await getLoan(borrower, loan.id)).toMatchObject({ amountRepaid: 0, status: "ACTIVE" });
    expect((await server.request("GET", "/lending/offers", {})).status).toBe(401);
    await expectLedgerOk(server);
  });
});
