// An action on an item past its due time is refused, and the transition that came due is kept
// (issue 22: "every timed transition is applied on every read and action path and kept when the action
// itself is refused"). The clock crosses each deadline with no job run after the crossing, and only the
// balances are read before the action (a balance read applies nothing), so the action's own path is
// what must store the transition.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crossWithoutJobs } from "./helpers/clock";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer()));
afterAll(() => server.close());

async function funded(): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, 100);
  return agent;
}

/** Waits for the start of a scheduler period (up to 5 s). */
const CROSSES = { timeout: 20_000 };

describe("an action refused because its item is past due keeps the transition", () => {
  test("accepting an expired bet: 409, and the creator's stake is back", async () => {
    const [creator, acceptor] = [await funded(), await funded()];
    const bet = (await server.request("POST", "/betting", { key: creator.apiKey, body: { description: "rain", condition: "it rains", amount: 10, currency: "USDC", expiresInHours: 1 } })).body;
    await crossWithoutJobs(server, Date.parse(bet.expiresAt));
    const accepted = await server.request("POST", `/betting/${bet.id}/accept`, { key: acceptor.apiKey });
    expect([accepted.status, accepted.body.error]).toEqual([409, "INVALID_STATE"]);
    expect(await server.balance(creator)).toEqual({ available: 100, held: 0 });
    expect(await server.balance(acceptor)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  }, CROSSES);

  test("borrowing from an expired offer: refused, and the lender's amount is back", async () => {
    const [lender, borrower] = [await funded(), await funded()];
    const offer = (await server.request("POST", "/lending/offers", { key: lender.apiKey, body: { amount: 10, currency: "USDC", interestRate: 0, durationDays: 30, collateralPercent: 0, expiresInHours: 1 } })).body;
    await crossWithoutJobs(server, Date.parse(offer.expiresAt));
    const borrowed = await server.request("POST", "/lending/borrow", { key: borrower.apiKey, body: { offerId: offer.id } });
    expect(borrowed.status).toBe(409);
    expect(await server.balance(lender)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  }, CROSSES);

  test("repaying a loan past its due date: refused, and the collateral is the lender's", async () => {
    const [lender, borrower] = [await funded(), await funded()];
    const offer = (await server.request("POST", "/lending/offers", { key: lender.apiKey, body: { amount: 10, currency: "USDC", interestRate: 0, durationDays: 1, collateralPercent: 100 } })).body;
    const loan = (await server.request("POST", "/lending/borrow", { key: borrower.apiKey, body: { offerId: offer.id } })).body;
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 10 });
    await crossWithoutJobs(server, Date.parse(loan.dueAt));
    const repaid = await server.request("POST", `/lending/repay/${loan.id}`, { key: borrower.apiKey, body: { amount: 10 } });
    expect(repaid.status).toBe(409);
    // Defaulted: the borrower keeps the principal, the lender has the collateral.
    expect(await server.balance(borrower)).toEqual({ available: 100, held: 0 });
    expect(await server.balance(lender)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  }, CROSSES);

  test("signing a contract past its deadline: 409, and the creator's escrow is back", async () => {
    const [creator, counterparty] = [await funded(), await funded()];
    const contract = (
      await server.request("POST", "/contracts", {
        key: creator.apiKey,
        body: { counterpartyId: counterparty.id, title: "job", description: "a job", escrowAmount: 10, currency: "USDC", deadlineDays: 1, conditions: [{ id: "done", type: "DELIVERY", description: "done", params: {} }] },
      })
    ).body;
    await crossWithoutJobs(server, Date.parse(contract.deadlineAt));
    const signed = await server.request("POST", `/contracts/${contract.id}/sign`, { key: counterparty.apiKey });
    expect([signed.status, signed.body.error]).toEqual([409, "INVALID_STATE"]);
    expect(await server.balance(creator)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  }, CROSSES);
});
