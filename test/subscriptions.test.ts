import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { periodStart } from "../src/subscriptions/periods";
import { MINUTE_MS } from "../src/time";
import { block, financialNotifications } from "./helpers/inbox";
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
const daily = (recipient: Agent, amount: number) => ({ recipientId: recipient.id, amount, currency: "USDC", frequency: "DAILY" });
const subscribe = (payer: Agent, body: Record<string, unknown>, headers?: Record<string, string>) =>
  server.request("POST", "/subscriptions", { key: payer.apiKey, body, headers });
const read = async (agent: Agent, id: string) => (await server.request("GET", `/subscriptions/${id}`, { key: agent.apiKey })).body;
/** Available and held of payer and recipient, in that order. */
const balances = async (payer: Agent, recipient: Agent) => [await server.balance(payer), await server.balance(recipient)];
const held0 = (available: number) => ({ available, held: 0 });
/** The payment.received events of the recipient (one per charge). */
const received = async (agent: Agent) =>
  (await server.request("GET", "/messages/inbox?type=payment.received&limit=100", { key: agent.apiKey })).body.data.map(
    (message: { metadata: Record<string, any> }) => message.metadata,
  );

describe("period arithmetic", () => {
  test("MONTHLY from Jan 31 clamps to each month's end, always from the anchor", () => {
    const anchor = Date.UTC(2027, 0, 31, 9, 30);
    const dates = [0, 1, 2, 3, 12, 13].map((n) => new Date(periodStart(anchor, "MONTHLY", n)).toISOString().slice(0, 16));
    expect(dates).toEqual(["2027-01-31T09:30", "2027-02-28T09:30", "2027-03-31T09:30", "2027-04-30T09:30", "2028-01-31T09:30", "2028-02-29T09:30"]);
    expect(new Date(periodStart(Date.UTC(2027, 11, 31), "MONTHLY", 2)).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(periodStart(anchor, "DAILY", 3) - anchor).toBe(3 * DAY * 1000);
    expect(periodStart(anchor, "WEEKLY", 2) - anchor).toBe(14 * DAY * 1000);
  });
});

describe("subscriptions", () => {
  test("the first charge is taken at once; then exactly one charge per DAILY period", async () => {
    const [payer, recipient] = await pair(100);
    const created = await subscribe(payer, { recipientId: recipient.id, amount: 2.5, currency: "USDC", frequency: "DAILY" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ payerId: payer.id, recipientId: recipient.id, amount: 2.5, currency: "USDC", frequency: "DAILY", status: "ACTIVE", periodsCharged: 1, failedAttempts: 0 });
    expect(Date.parse(created.body.nextChargeAt) - Date.parse(created.body.createdAt)).toBe(DAY * 1000);
    expect(await balances(payer, recipient)).toEqual([held0(97.5), held0(2.5)]);
    expect((await read(recipient, created.body.id)).id).toBe(created.body.id);

    await server.advance(DAY - 10);
    expect((await read(payer, created.body.id)).periodsCharged).toBe(1);
    for (let day = 1; day <= 3; day++) {
      await server.advance(day === 1 ? 10 : DAY);
      expect((await read(payer, created.body.id)).periodsCharged).toBe(1 + day);
    }
    expect(await balances(payer, recipient)).toEqual([held0(90), held0(10)]);

    // Each charge is a payment of kind SUBSCRIPTION, told to the recipient, in both histories.
    const payments = await received(recipient);
    expect(payments).toHaveLength(4);
    for (const event of payments) {
      const payment = (await server.request("GET", `/payments/${event.paymentId}`, { key: payer.apiKey })).body;
      expect(payment).toMatchObject({ fromAgentId: payer.id, toAgentId: recipient.id, amount: 2.5, currency: "USDC", kind: "SUBSCRIPTION", status: "COMPLETED" });
    }
    const history = (await server.request("GET", "/wallets/history?limit=100", { key: payer.apiKey })).body.data;
    expect(history.filter((entry: { type: string }) => entry.type === "PAYMENT_SENT").map((entry: { amount: number }) => entry.amount)).toEqual([-2.5, -2.5, -2.5, -2.5]);
    for (const party of [payer, recipient]) {
      expect((await financialNotifications(server, party, "subscription.charged")).map((data) => data.period)).toEqual([0, 1, 2, 3]);
    }
    expect((await server.request("GET", `/agents/${payer.id}/reputation`)).body.score).toBe(4);
    expect((await server.request("GET", `/agents/${recipient.id}/reputation`)).body.score).toBe(0);
    await expectLedgerOk(server);
  });

  test("advancing 10 days in one call charges 10 periods, not 1 and not 11", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    await server.advance(10 * DAY);
    expect(await read(payer, id)).toMatchObject({ status: "ACTIVE", periodsCharged: 11 });
    expect(await balances(payer, recipient)).toEqual([held0(89), held0(11)]);
    expect(await received(recipient)).toHaveLength(11);
    await expectLedgerOk(server);
  });

  test("WEEKLY charges every 7 days", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 5, currency: "USDC", frequency: "WEEKLY" })).body;
    await server.advance(6 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(1);
    await server.advance(DAY);
    expect((await read(payer, id)).periodsCharged).toBe(2);
    expect(await balances(payer, recipient)).toEqual([held0(90), held0(10)]);
    await expectLedgerOk(server);
  });

  test("cancel stops the charges; either party may cancel, a stranger gets 404, twice is 409", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    const stranger = await server.register();
    const refused = await server.request("DELETE", `/subscriptions/${id}`, { key: stranger.apiKey });
    expect([refused.status, refused.body.error]).toEqual([404, "NOT_FOUND"]);
    expect((await server.request("GET", `/subscriptions/${id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await server.request("DELETE", `/subscriptions/${crypto.randomUUID()}`, { key: payer.apiKey })).status).toBe(404);
    await server.advance(DAY);
    const cancelled = await server.request("DELETE", `/subscriptions/${id}`, { key: recipient.apiKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "CANCELLED", nextChargeAt: null, periodsCharged: 2, cancelReason: "cancelled by the recipient" });
    expect((await financialNotifications(server, payer, "subscription.cancelled"))).toHaveLength(1);
    const again = await server.request("DELETE", `/subscriptions/${id}`, { key: payer.apiKey });
    expect([again.status, again.body.error]).toEqual([409, "INVALID_STATE"]);
    await server.advance(5 * DAY);
    expect(await read(payer, id)).toMatchObject({ status: "CANCELLED", periodsCharged: 2 });
    expect(await balances(payer, recipient)).toEqual([held0(98), held0(2)]);

    const second = (await subscribe(payer, daily(recipient, 1))).body;
    expect((await server.request("DELETE", `/subscriptions/${second.id}`, { key: payer.apiKey })).body.cancelReason).toBe("cancelled by the payer");
    await server.advance(2 * DAY);
    expect(await balances(payer, recipient)).toEqual([held0(97), held0(3)]);
    await expectLedgerOk(server);
  });

  test("a failed charge makes it PAST_DUE; a successful retry 24 h later returns it to ACTIVE", async () => {
    const [payer, recipient] = await pair(3);
    const { id } = (await subscribe(payer, { recipientId: recipient.id, amount: 2, currency: "USDC", frequency: "DAILY" })).body;
    await server.advance(DAY);
    const pastDue = await read(payer, id);
    expect(pastDue).toMatchObject({ status: "PAST_DUE", periodsCharged: 1, failedAttempts: 1 });
    expect(pastDue.lastError).toContain("INSUFFICIENT_BALANCE");
    expect(Date.parse(pastDue.nextChargeAt) - Date.parse(pastDue.createdAt)).toBe(2 * DAY * 1000);
    expect(await balances(payer, recipient)).toEqual([held0(1), held0(2)]);
    for (const party of [payer, recipient]) {
      expect(await financialNotifications(server, party, "subscription.charge_failed")).toEqual([
        expect.objectContaining({ subscriptionId: id, period: 1, failedAttempts: 1, error: "INSUFFICIENT_BALANCE" }),
      ]);
    }

    await server.deposit(payer.id, 10);
    await server.advance(DAY);
    // The retry charges the missed period; the period that came due meanwhile is charged too.
    const recovered = await read(payer, id);
    expect(recovered).toMatchObject({ status: "ACTIVE", periodsCharged: 3, failedAttempts: 0, lastError: null });
    expect(Date.parse(recovered.nextChargeAt) - Date.parse(recovered.createdAt)).toBe(3 * DAY * 1000);
    expect(await balances(payer, recipient)).toEqual([held0(7), held0(6)]);
    expect(await received(recipient)).toHaveLength(3);
    await expectLedgerOk(server);
  });

  test("after 3 failed tries it is CANCELLED, and never charged again", async () => {
    const [payer, recipient] = await pair(1);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    await server.advance(DAY);
    expect(await read(payer, id)).toMatchObject({ status: "PAST_DUE", failedAttempts: 1 });
    await server.advance(DAY);
    expect(await read(payer, id)).toMatchObject({ status: "PAST_DUE", failedAttempts: 2 });
    await server.advance(DAY);
    const cancelled = await read(payer, id);
    expect(cancelled).toMatchObject({ status: "CANCELLED", failedAttempts: 3, periodsCharged: 1, nextChargeAt: null });
    expect(cancelled.cancelReason).toContain("3");
    for (const party of [payer, recipient]) {
      expect((await financialNotifications(server, party, "subscription.charge_failed")).map((data) => data.failedAttempts)).toEqual([1, 2]);
      expect(await financialNotifications(server, party, "subscription.cancelled")).toEqual([expect.objectContaining({ subscriptionId: id, failedAttempts: 3 })]);
    }
    await server.deposit(payer.id, 10);
    await server.advance(3 * DAY);
    expect((await read(payer, id)).periodsCharged).toBe(1);
    expect(await balances(payer, recipient)).toEqual([held0(10), held0(1)]);
    await expectLedgerOk(server);
  });

  test("a clock jump while PAST_DUE makes each retry once: 3 failures and CANCELLED, not more", async () => {
    const [payer, recipient] = await pair(1);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    await server.advance(10 * DAY);
    expect(await read(payer, id)).toMatchObject({ status: "CANCELLED", failedAttempts: 3, periodsCharged: 1 });
    expect(await financialNotifications(server, payer, "subscription.charge_failed")).toHaveLength(2);
    expect(await financialNotifications(server, recipient, "subscription.cancelled")).toHaveLength(1);
    await expectLedgerOk(server);
  });

  test("a block after creation makes the charge fail (FORBIDDEN); unblocking lets the retry succeed", async () => {
    const [payer, recipient] = await pair(10);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    await block(server, recipient, payer);
    await server.advance(DAY);
    const pastDue = await read(payer, id);
    expect(pastDue).toMatchObject({ status: "PAST_DUE", failedAttempts: 1 });
    expect(pastDue.lastError).toContain("FORBIDDEN");
    await server.request("DELETE", `/agents/me/block/${payer.id}`, { key: recipient.apiKey });
    await server.advance(DAY);
    expect(await read(payer, id)).toMatchObject({ status: "ACTIVE", periodsCharged: 3 });
    expect(await balances(payer, recipient)).toEqual([held0(7), held0(3)]);
    await expectLedgerOk(server);
  });

  test("overlapping runs (job and reads at once) charge each period once and count each failure once", async () => {
    const [payer, recipient] = await pair(4);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    const reads = () => Array.from({ length: 20 }, (_, n) => server.request("GET", n % 2 ? `/subscriptions/${id}` : "/subscriptions/mine", { key: payer.apiKey }));
    await Promise.all([server.advance(2 * DAY), ...reads()]);
    await Promise.all([server.advance(DAY), ...reads()]);
    expect(await read(payer, id)).toMatchObject({ status: "ACTIVE", periodsCharged: 4 });
    for (let failures = 1; failures <= 2; failures++) {
      await Promise.all([server.advance(DAY), ...reads()]);
      expect(await read(payer, id)).toMatchObject({ status: "PAST_DUE", failedAttempts: failures, periodsCharged: 4 });
    }
    await Promise.all([server.advance(DAY), ...reads()]);
    expect(await read(payer, id)).toMatchObject({ status: "CANCELLED", failedAttempts: 3, periodsCharged: 4 });
    expect(await balances(payer, recipient)).toEqual([held0(0), held0(4)]);
    expect(await received(recipient)).toHaveLength(4);
    await expectLedgerOk(server);
  });

  test("a restart between periods charges each period once", async () => {
    const [payer, recipient] = await pair(100);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
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
    expect(await balances(payer, recipient)).toEqual([held0(91), held0(9)]);
    expect(await received(recipient)).toHaveLength(9);
    expect((await financialNotifications(server, recipient, "subscription.charged")).map((data) => data.period)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await expectLedgerOk(server);
  });

  test("listing by role, newest first, paginated", async () => {
    const [payer, recipient] = await pair(10);
    await subscribe(payer, daily(recipient, 1));
    await subscribe(payer, { recipientId: recipient.id, amount: 2, currency: "USDC", frequency: "WEEKLY" });
    const mine = (await server.request("GET", "/subscriptions/mine", { key: payer.apiKey })).body;
    expect(mine.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect(mine.data.map((s: { amount: number }) => s.amount)).toEqual([2, 1]);
    const page = (await server.request("GET", "/subscriptions/mine?role=payer&limit=1&offset=1", { key: payer.apiKey })).body;
    expect(page.data.map((s: { amount: number }) => s.amount)).toEqual([1]);
    expect(page.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false, nextAfter: null });
    expect((await server.request("GET", "/subscriptions/mine?role=recipient", { key: payer.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/subscriptions/mine?role=recipient", { key: recipient.apiKey })).body.pagination.total).toBe(2);
    expect((await server.request("GET", "/subscriptions/mine?role=payer", { key: recipient.apiKey })).body.pagination.total).toBe(0);
    expect(await balances(payer, recipient)).toEqual([held0(7), held0(3)]);
    await expectLedgerOk(server);
  });

  test("Idempotency-Key: a replay returns the same subscription and charges nothing more", async () => {
    const [payer, recipient] = await pair(10);
    const first = await subscribe(payer, daily(recipient, 1), { "idempotency-key": "sub-1" });
    const again = await subscribe(payer, daily(recipient, 1), { "idempotency-key": "sub-1" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expect((await subscribe(payer, daily(recipient, 2), { "idempotency-key": "sub-1" })).body.error).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await balances(payer, recipient)).toEqual([held0(9), held0(1)]);
    await expectLedgerOk(server);
  });
});

describe("MONTHLY over HTTP, from a Jan 31", () => {
  let monthly: TestServer;
  beforeAll(async () => {
    monthly = await startServer();
  });
  afterAll(() => monthly.close());

  test("charges on Feb 28, Mar 31 and Apr 30, never on Mar 28", async () => {
    const now = Date.parse((await monthly.admin("POST", "/admin/clock/advance", { seconds: 0 })).body.now);
    const year = new Date(now).getUTCFullYear() + 1;
    const at = (month: number, day: number) => Date.UTC(year, month, day, 12);
    await monthly.advance((at(0, 31) - now) / 1000);

    const payer = await monthly.register();
    const recipient = await monthly.register();
    await monthly.deposit(payer.id, 100);
    const created = await monthly.request("POST", "/subscriptions", {
      key: payer.apiKey,
      body: { recipientId: recipient.id, amount: 10, currency: "USDC", frequency: "MONTHLY" },
    });
    expect(created.status).toBe(201);
    const anchor = Date.parse(created.body.createdAt);
    expect(new Date(anchor).toISOString().slice(0, 10)).toBe(`${year}-01-31`);
    const due = (month: number, day: number) => at(month, day) + (anchor - at(0, 31));
    expect(Date.parse(created.body.nextChargeAt)).toBe(due(1, 28));

    const state = async () => (await monthly.request("GET", `/subscriptions/${created.body.id}`, { key: payer.apiKey })).body;
    const advanceTo = async (ms: number) => monthly.advance((ms - Date.parse((await monthly.admin("POST", "/admin/clock/advance", { seconds: 0 })).body.now)) / 1000);

    await advanceTo(due(1, 28) - MINUTE_MS);
    expect((await state()).periodsCharged).toBe(1);
    await advanceTo(due(1, 28) + 1000);
    expect(await state()).toMatchObject({ periodsCharged: 2, nextChargeAt: new Date(due(2, 31)).toISOString() });
    await advanceTo(due(2, 28) + 1000);
    expect((await state()).periodsCharged).toBe(2);
    await advanceTo(due(2, 31) + 1000);
    expect(await state()).toMatchObject({ periodsCharged: 3, nextChargeAt: new Date(due(3, 30)).toISOString() });
    await advanceTo(due(3, 30) + 1000);
    expect((await state()).periodsCharged).toBe(4);
    expect([await monthly.balance(payer), await monthly.balance(recipient)]).toEqual([held0(60), held0(40)]);
    await expectLedgerOk(monthly);
  });
});

describe("refusals create nothing", () => {
  test("insufficient balance, tier limit, block, self and unknown recipient", async () => {
    const [payer, recipient] = await pair(5);
    const poor = await subscribe(payer, daily(recipient, 6));
    expect([poor.status, poor.body.error]).toEqual([400, "INSUFFICIENT_BALANCE"]);
    await server.deposit(payer.id, 200);
    const overTier = await subscribe(payer, daily(recipient, 100.01));
    expect([overTier.status, overTier.body.error]).toEqual([403, "TIER_LIMIT_EXCEEDED"]);
    const self = await subscribe(payer, daily(payer, 1));
    expect([self.status, self.body.error]).toEqual([400, "VALIDATION_ERROR"]);
    const unknown = await subscribe(payer, { ...daily(recipient, 1), recipientId: crypto.randomUUID() });
    expect([unknown.status, unknown.body.error]).toEqual([404, "NOT_FOUND"]);
    await block(server, recipient, payer);
    const blocked = await subscribe(payer, daily(recipient, 1));
    expect([blocked.status, blocked.body.error]).toEqual([403, "FORBIDDEN"]);
    for (const party of [payer, recipient]) {
      expect((await server.request("GET", "/subscriptions/mine", { key: party.apiKey })).body.pagination.total).toBe(0);
      expect(await financialNotifications(server, party, "subscription.")).toEqual([]);
    }
    expect(await received(recipient)).toEqual([]);
    expect(await balances(payer, recipient)).toEqual([held0(205), held0(0)]);
    await expectLedgerOk(server);
  });

  const bad: [string, (to: string) => unknown][] = [
    ["missing frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC" })],
    ["missing recipientId", () => ({ amount: 1, currency: "USDC", frequency: "DAILY" })],
    ["missing amount", (to) => ({ recipientId: to, currency: "USDC", frequency: "DAILY" })],
    ["missing currency", (to) => ({ recipientId: to, amount: 1, frequency: "DAILY" })],
    ["unknown frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "HOURLY" })],
    ["lowercase frequency", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "daily" })],
    ["amount below 0.01", (to) => ({ recipientId: to, amount: 0.001, currency: "USDC", frequency: "DAILY" })],
    ["negative amount", (to) => ({ recipientId: to, amount: -1, currency: "USDC", frequency: "DAILY" })],
    ["amount above 1e9", (to) => ({ recipientId: to, amount: 1e9 + 1, currency: "USDC", frequency: "DAILY" })],
    ["amount as a string", (to) => ({ recipientId: to, amount: "1", currency: "USDC", frequency: "DAILY" })],
    ["amount with 3 decimals in USD", (to) => ({ recipientId: to, amount: 1.005, currency: "USD", frequency: "DAILY" })],
    ["unknown currency", (to) => ({ recipientId: to, amount: 1, currency: "XRP", frequency: "DAILY" })],
    ["recipient not a UUID", () => ({ recipientId: "x", amount: 1, currency: "USDC", frequency: "DAILY" })],
    ["unknown field", (to) => ({ recipientId: to, amount: 1, currency: "USDC", frequency: "DAILY", startAt: "now" })],
    ["an array", () => []],
  ];
  test.each(bad)("POST %s → 400", async (_, body) => {
    const [payer, recipient] = await pair(10);
    const reply = await subscribe(payer, body(recipient.id) as Record<string, unknown>);
    expect([reply.status, reply.body.error]).toEqual([400, "VALIDATION_ERROR"]);
    expect(await balances(payer, recipient)).toEqual([held0(10), held0(0)]);
    expect((await server.request("GET", "/subscriptions/mine", { key: payer.apiKey })).body.pagination.total).toBe(0);
  });

  test("malformed JSON, bad ids, bad list queries and missing keys", async () => {
    const [payer, recipient] = await pair(10);
    const { id } = (await subscribe(payer, daily(recipient, 1))).body;
    const malformed = await server.request("POST", "/subscriptions", { key: payer.apiKey, raw: "{", headers: { "content-type": "application/json" } });
    expect([malformed.status, malformed.body.error]).toEqual([400, "VALIDATION_ERROR"]);
    for (const [method, path] of [["GET", "/subscriptions/nope"], ["DELETE", "/subscriptions/nope"], ["GET", "/subscriptions/mine?limit=0"], ["GET", "/subscriptions/mine?limit=101"], ["GET", "/subscriptions/mine?offset=-1"], ["GET", "/subscriptions/mine?limit=x"], ["GET", "/subscriptions/mine?role=owner"]] as const) {
      const reply = await server.request(method, path, { key: payer.apiKey });
      expect([method, path, reply.status, reply.body.error]).toEqual([method, path, 400, "VALIDATION_ERROR"]);
    }
    for (const [method, path] of [["POST", "/subscriptions"], ["GET", "/subscriptions/mine"], ["GET", `/subscriptions/${id}`], ["DELETE", `/subscriptions/${id}`]] as const) {
      const reply = await server.request(method, path, { key: "pp_wrong", body: method === "POST" ? daily(recipient, 1) : undefined });
      expect([method, path, reply.status, reply.body.error]).toEqual([method, path, 401, "UNAUTHORIZED"]);
    }
    expect(await read(payer, id)).toMatchObject({ status: "ACTIVE", periodsCharged: 1 });
    expect(await balances(payer, recipient)).toEqual([held0(9), held0(1)]);
    await expectLedgerOk(server);
  });
});
