import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { periodStart } from "../src/subscriptions/periods";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const DAY = 86_400;
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function pair(fund: number): Promise<[Agent, Agent]> {
  const payer = await server.register();
  const recipient = await server.register();
  if (fund > 0) await server.deposit(payer.id, fund);
  return [payer, recipient];
}
const subscribe = (payer: Agent, body: Record<string, unknown>) => server.request("POST", "/subscriptions", { key: payer.apiKey, body });
const read = async (agent: Agent, id: string) => (await server.request("GET", `/subscriptions/${id}`, { key: agent.apiKey })).body;
const charges = async (agent: Agent) =>
  (await server.request("GET", "/messages/inbox?type=payment.received&limit=100", { key: agent.apiKey })).body.pagination.total;

describe("period arithmetic", () => {
  test("MONTHLY from Jan 31 clamps to each month's end, always from the anchor", () => {
    const anchor = Date.UTC(2027, 0, 31, 9, 30);
    const dates = [0, 1, 2, 3, 12, 13].map((n) => new Date(periodStart(anchor, "MONTHLY", n)).toISOString().slice(0, 16));
    expect(dates).toEqual(["2027-01-31T09:30", "2027-02-28T09:30", "2027-03-31T09:30", "2027-04-30T09:30", "2028-01-31T09:30", "2028-02-29T09:30"]);
    expect(periodStart(anchor, "DAILY", 3) - anchor).toBe(3 * DAY * 1000);
    expect(periodStart(anchor, "WEEKLY", 2) - anchor).toBe(14 * DAY * 1000);
  });
});

describe("subscriptions", () => {
  test("the first charge is taken at once; then exactly one charge per DAILY period", async () => {
    const [payer, recipient] = await pair(100);
    const created = await subscribe(payer, { recipientId: recipient.id, amount: 2.5, currency: "USDC", frequency: "DAILY" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ payerId: payer.id, recipientId: recipient.id, amount: 2.5, currency: "USDC", frequency: "DAILY", status: "ACTIVE", periodsCharged: 1 });
    expect(await server.balance(payer)).toEqual({ available: 97.5, held: 0 });
    expect(await server.balance(recipient)).toEqual({ available: 2.5, held: 0 });

    await server.advance(DAY - 10);
    expect((await read(payer, created.body.id)).periodsCharged).toBe(1);
    for (let day = 1; day <= 3; day++) {
      await server.advance(day === 1 ? 10 : DAY);
      expect((await read(payer, created.body.id)).periodsCharged).toBe(1 + day);
    }
    expect(await server.balance(payer)).toEqual({ available: 90, held: 0 });
    expect(await server.balance(recipient)).toEqual({ available: 10, held: 0 });
    expect(await charges(recipient)).toBe(4);
    const notices = (await server.request("GET", "/messages/inbox?type=notification.financial&limit=100", { key: payer.apiKey })).body.data;
    expect(notices.filter((m: { metadata: { kind: string } }) => m.metadata.kind === "subscription.charged")).toHaveLength(4);
    expect((await server.request("GET", `/agents/${payer.id}/reputation`)).body.score).toBe(4);
    await expectLedgerOk(server);
  });

  test("advancing 10 days in one call charges 10 periods, not 1 and not 11", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" })).body;
    await server.advance(10 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(11);
    expect(await server.balance(payer)).toEqual({ available: 89, held: 0 });
    expect(await charges(recipient)).toBe(11);
    await expectLedgerOk(server);
  });

  test("WEEKLY charges every 7 days", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 5, currency: "USDC", frequency: "WEEKLY" })).body;
    await server.advance(6 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(1);
    await server.advance(DAY);
    expect((await read(payer, id)).periodsCharged).toBe(2);
    expect(await server.balance(recipient)).toEqual({ available: 10, held: 0 });
  });

  test("cancel stops the charges; either party may cancel, a stranger gets 404, twice is 409", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" })).body;
    const stranger = await server.register();
    expect((await server.request("DELETE", `/subscriptions/${id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await server.request("GET", `/subscriptions/${id}`, { key: stranger.apiKey })).status).toBe(404);
    const cancelled = await server.request("DELETE", `/subscriptions/${id}`, { key: recipient.apiKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "CANCELLED", nextChargeAt: null });
    expect((await server.request("DELETE", `/subscriptions/${id}`, { key: payer.apiKey })).status).toBe(409);
    await server.advance(5 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(1);
    expect(await server.balance(payer)).toEqual({ available: 99, held: 0 });
  });

  test("a failed charge makes it PAST_DUE; a successful retry 24 h later returns it to ACTIVE", async () => {
    const [payer, recipient] = await pair(3);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 2, currency: "USDC", frequency: "DAILY" })).body;
    await server.advance(DAY);
    const pastDue = await read(payer, id);
    expect(pastDue).toMatchObject({ status: "PAST_DUE", periodsCharged: 1, failedAttempts: 1 });
    expect(pastDue.lastError).toContain("INSUFFICIENT_BALANCE");
    expect(await server.balance(payer)).toEqual({ available: 1, held: 0 });
    const notices = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: recipient.apiKey })).body.data;
    expect(notices.map((m: { metadata: { kind: string } }) => m.metadata.kind)).toContain("subscription.charge_failed");

    await server.deposit(payer.id, 10);
    await server.advance(DAY);
    // The retry charges the missed period; the period that came due meanwhile is charged too.
    const recovered = await read(payer, id);
    expect(recovered).toMatchObject({ status: "ACTIVE", periodsCharged: 3, failedAttempts: 0 });
    expect(await server.balance(payer)).toEqual({ available: 7, held: 0 });
    expect(await server.balance(recipient)).toEqual({ available: 6, held: 0 });
    await expectLedgerOk(server);
  });

  test("after 3 failed tries it is CANCELLED", async () => {
    const [payer, recipient] = await pair(1);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" })).body;
    await server.advance(DAY);
    expect((await read(payer, id)).status).toBe("PAST_DUE");
    await server.advance(DAY);
    expect((await read(payer, id))).toMatchObject({ status: "PAST_DUE", failedAttempts: 2 });
    await server.advance(DAY);
    const cancelled = await read(payer, id);
    expect(cancelled).toMatchObject({ status: "CANCELLED", failedAttempts: 3, periodsCharged: 1 });
    expect(cancelled.cancelReason).toContain("3");
    await server.deposit(payer.id, 10);
    await server.advance(3 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(1);
    expect(await server.balance(recipient)).toEqual({ available: 1, held: 0 });
  });

  test("a restart between periods charges each period once", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" })).body;
    await server.advance(2 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(3);
    await server.restart("SIGKILL");
    expect((await read(payer, id)).periodsCharged).toBe(3);
    await server.advance(5 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(8);
    await server.restart("SIGTERM");
    expect((await read(payer, id)).periodsCharged).toBe(8);
    await server.advance(DAY);
    expect((await read(payer, id)).periodsCharged).toBe(9);
    expect(await server.balance(recipient)).toEqual({ available: 9, held: 0 });
    expect(await server.balance(payer)).toEqual({ available: 91, held: 0 });
    expect(await charges(recipient)).toBe(9);
    await expectLedgerOk(server);
  });

  test("listing by role, newest first", async () => {
    const [payer, recipient] = await pair(10);
    await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" });
    await subscribe(payer, { recipientId: recipient.id, amount: 2, currency: "USDC", frequency: "WEEKLY" });
    const mine = (await server.request("GET", "/subscriptions/mine", { key: payer.apiKey })).body;
    expect(mine.pagination.total).toBe(2);
    expect(mine.data.map((s: { amount: number }) => s.amount)).toEqual([2, 1]);
    expect((await server.request("GET", "/subscriptions/mine?role=recipient", { key: payer.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/subscriptions/mine?role=recipient", { key: recipient.apiKey })).body.pagination.total).toBe(2);
    expect((await server.request("GET", "/subscriptions/mine?role=owner", { key: payer.apiKey })).status).toBe(400);
  });
});

describe("refusals create nothing", () => {
  test("insufficient balance, tier limit, block, self and unknown recipient", async () => {
    const [payer, recipient] = await pair(5);
    const poor = await subscribe(payer, { recipientId: recipient.id, amount: 6, currency: "USDC", frequency: "DAILY" });
    expect(poor.status).toBe(400);
    expect(poor.body.error).toBe("INSUFFICIENT_BALANCE");
    await server.deposit(payer.id, 200);
    expect((await subscribe(payer, { recipientId: recipient.id, amount: 100.01, currency: "USDC", frequency: "DAILY" })).body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect((await subscribe(payer, { recipientId: payer.id, amount: 1, currency: "USDC", frequency: "DAILY" })).status).toBe(400);
    expect((await subscribe(payer, { recipientId: crypto.randomUUID(), amount: 1, currency: "USDC", frequency: "DAILY" })).status).toBe(404);
    await server.request("POST", "/agents/me/block", { key: recipient.apiKey, body: { agentId: payer.id } });
    expect((await subscribe(payer, { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" })).status).toBe(403);
    expect((await server.request("GET", "/subscriptions/mine", { key: payer.apiKey })).body.pagination.total).toBe(0);
    expect(await server.balance(payer)).toEqual({ available: 205, held: 0 });
    await expectLedgerOk(server);
  });

  const bad: [string, (to: string) => unknown][] = [
    ["missing frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC" })],
    ["unknown frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "HOURLY" })],
    ["lowercase frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "daily" })],
    ["amount below 0.01", (to) => ({ recipientId: to, amount: 0.001, currency: "USDC", frequency: "DAILY" })],
    ["amount with 3 decimals in USD", (to) => ({ recipientId: to, amount: 1.005, currency: "USD", frequency: "DAILY" })],
    ["unknown currency", (to) => ({ recipientId: to, amount: 1, currency: "XRP", frequency: "DAILY" })],
    ["recipient not a UUID", () => ({ recipientId: "x", amount: 1, currency: "USDC", frequency: "DAILY" })],
    ["unknown field", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "DAILY", startAt: "now" })],
  ];
  test.each(bad)("%s → 400", async (_, body) => {
    const [payer, recipient] = await pair(10);
    const reply = await subscribe(payer, body(recipient.id) as Record<string, unknown>);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(await server.balance(payer)).toEqual({ available: 10, held: 0 });
  });

  test("bad ids are 400", async () => {
    const [payer] = await pair(0);
    expect((await server.request("GET", "/subscriptions/nope", { key: payer.apiKey })).status).toBe(400);
    expect((await server.request("DELETE", "/subscriptions/nope", { key: payer.apiKey })).status).toBe(400);
  });
});
