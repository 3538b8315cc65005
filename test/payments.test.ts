import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function pair(fund = 0, currency = "USDC"): Promise<[Agent, Agent]> {
  const payer = await server.register();
  const payee = await server.register();
  if (fund > 0) await server.deposit(payer.id, fund, currency);
  return [payer, payee];
}

const send = (payer: Agent, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.request("POST", "/payments/send", { key: payer.apiKey, body, headers });

describe("payments", () => {
  test("moves exactly the amount and is readable by both parties only", async () => {
    const [payer, payee] = await pair(50);
    const reply = await send(payer, { toAgentId: payee.id, amount: 12.345678, currency: "USDC", reason: "data", metadata: { job: 7 } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ fromAgentId: payer.id, toAgentId: payee.id, amount: 12.345678, currency: "USDC", reason: "data", metadata: { job: 7 }, status: "COMPLETED" });
    expect(await server.balance(payer)).toEqual({ available: 37.654322, held: 0 });
    expect(await server.balance(payee)).toEqual({ available: 12.345678, held: 0 });

    for (const agent of [payer, payee]) {
      const read = await server.request("GET", `/payments/${reply.body.id}`, { key: agent.apiKey });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(reply.body.id);
    }
    const stranger = await server.register();
    expect((await server.request("GET", `/payments/${reply.body.id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await server.request("GET", "/payments/not-a-uuid", { key: payer.apiKey })).status).toBe(400);

    const history = (await server.request("GET", "/wallets/history", { key: payer.apiKey })).body;
    expect(history.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect(history.data[0]).toMatchObject({ type: "PAYMENT_SENT", amount: -12.345678, currency: "USDC", counterpartyId: payee.id, reference: { type: "payment", id: reply.body.id } });
    expect(history.data[1]).toMatchObject({ type: "DEPOSIT", amount: 50 });
    const received = (await server.request("GET", "/wallets/history", { key: payee.apiKey })).body.data;
    expect(received[0]).toMatchObject({ type: "PAYMENT_RECEIVED", amount: 12.345678, counterpartyId: payer.id });
    await expectLedgerOk(server);
  });

  test("insufficient balance is 400 and changes nothing", async () => {
    const [payer, payee] = await pair(5);
    const reply = await send(payer, { toAgentId: payee.id, amount: 5.01, currency: "USDC" });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(payer)).toEqual({ available: 5, held: 0 });
    expect(await server.balance(payee)).toEqual({ available: 0, held: 0 });
    expect((await server.request("GET", `/agents/${payer.id}/reputation`)).body.score).toBe(0);
    await expectLedgerOk(server);
  });

  test("precision per currency: 0.015 USD rejected, 0.015 USDC accepted, BTC to 8 decimals", async () => {
    const [payer, payee] = await pair(10, "USD");
    await server.deposit(payer.id, 10, "USDC");
    await server.deposit(payer.id, 0.1, "BTC");
    const usd = await send(payer, { toAgentId: payee.id, amount: 0.015, currency: "USD" });
    expect(usd.status).toBe(400);
    expect(usd.body.error).toBe("VALIDATION_ERROR");
    const usdc = await send(payer, { toAgentId: payee.id, amount: 0.015, currency: "USDC" });
    expect(usdc.status).toBe(201);
    expect(usdc.body.amount).toBe(0.015);
    // 8 decimals pass validation; at 95,000 USD per BTC the payment's value is then over the UNRATED limit.
    const btc = await send(payer, { toAgentId: payee.id, amount: 0.01234567, currency: "BTC" });
    expect(btc.status).toBe(403);
    expect(btc.body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect((await send(payer, { toAgentId: payee.id, amount: 0.012345678, currency: "BTC" })).body.error).toBe("VALIDATION_ERROR");
    await server.deposit(payee.id, 0.00012345, "BTC");
    expect(await server.balance(payee, "BTC")).toEqual({ available: 0.00012345, held: 0 });
    expect(await server.balance(payer, "BTC")).toEqual({ available: 0.1, held: 0 });
    await expectLedgerOk(server);
  });

  const badBodies: [string, (to: string) => Record<string, unknown>][] = [
    ["below the 0.01 minimum", (to) => ({ toAgentId: to, amount: 0.009, currency: "USDC" })],
    ["zero", (to) => ({ toAgentId: to, amount: 0, currency: "USDC" })],
    ["negative", (to) => ({ toAgentId: to, amount: -1, currency: "USDC" })],
    ["amount as a string", (to) => ({ toAgentId: to, amount: "1", currency: "USDC" })],
    ["above 1e9", (to) => ({ toAgentId: to, amount: 1e10, currency: "USDC" })],
    ["unknown currency", (to) => ({ toAgentId: to, amount: 1, currency: "DOGE" })],
    ["missing currency", (to) => ({ toAgentId: to, amount: 1 })],
    ["lowercase currency", (to) => ({ toAgentId: to, amount: 1, currency: "usdc" })],
    ["recipient not a UUID", () => ({ toAgentId: "bob", amount: 1, currency: "USDC" })],
    ["missing recipient", () => ({ amount: 1, currency: "USDC" })],
    ["reason too long", (to) => ({ toAgentId: to, amount: 1, currency: "USDC", reason: "x".repeat(501) })],
    ["an unknown field", (to) => ({ toAgentId: to, amount: 1, currency: "USDC", memo: "x" })],
    ["metadata not an object", (to) => ({ toAgentId: to, amount: 1, currency: "USDC", metadata: [1, 2] })],
  ];
  test.each(badBodies)("%s → 400 and nothing moves", async (_, body) => {
    const [payer, payee] = await pair(10);
    const reply = await send(payer, body(payee.id));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(await server.balance(payer)).toEqual({ available: 10, held: 0 });
  });

  test("self-payment 400, unknown recipient 404", async () => {
    const [payer] = await pair(10);
    const self = await send(payer, { toAgentId: payer.id, amount: 1, currency: "USDC" });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe("VALIDATION_ERROR");
    const unknown = await send(payer, { toAgentId: crypto.randomUUID(), amount: 1, currency: "USDC" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("NOT_FOUND");
    expect(await server.balance(payer)).toEqual({ available: 10, held: 0 });
  });
});

describe("tier limits and reputation", () => {
  test("UNRATED may send 100 USDC but not 100.01; 5 payments promote to BRONZE (500)", async () => {
    const [payer, payee] = await pair(2000);
    const over = await send(payer, { toAgentId: payee.id, amount: 100.01, currency: "USDC" });
    expect(over.status).toBe(403);
    expect(over.body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect((await send(payer, { toAgentId: payee.id, amount: 100, currency: "USDC" })).status).toBe(201);
    // EUR is worth 1.08 USD: 92.60 EUR = 100.008 USD is over the limit, 92.59 EUR is not.
    await server.deposit(payer.id, 200, "EUR");
    expect((await send(payer, { toAgentId: payee.id, amount: 92.6, currency: "EUR" })).status).toBe(403);
    expect((await send(payer, { toAgentId: payee.id, amount: 92.59, currency: "EUR" })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await send(payer, { toAgentId: payee.id, amount: 1, currency: "USDC" })).status).toBe(201);

    const reputation = (await server.request("GET", `/agents/${payer.id}/reputation`)).body;
    expect(reputation).toMatchObject({ score: 5, tier: "BRONZE", maxPerTransaction: 500 });
    expect(reputation.events).toHaveLength(5);
    expect(reputation.events[0]).toMatchObject({ reason: "PAYMENT_COMPLETED", change: 1 });
    const limits = (await server.request("GET", "/payments/my-limits", { key: payer.apiKey })).body;
    expect(limits).toMatchObject({ agentId: payer.id, tier: "BRONZE", score: 5, maxPerTransaction: 500 });
    expect(limits.allTiers).toEqual([
      { tier: "UNRATED", maxPerTransaction: 100 },
      { tier: "BRONZE", maxPerTransaction: 500 },
      { tier: "SILVER", maxPerTransaction: 1000 },
      { tier: "GOLD", maxPerTransaction: 1000 },
      { tier: "PLATINUM", maxPerTransaction: 1000 },
    ]);
    expect(limits.howToIncrease).toContain("20");
    expect((await send(payer, { toAgentId: payee.id, amount: 500, currency: "USDC" })).status).toBe(201);
    expect((await send(payer, { toAgentId: payee.id, amount: 500.01, currency: "USDC" })).status).toBe(403);
    // The payee's score does not change: only the payer earns +1.
    expect((await server.request("GET", `/agents/${payee.id}/reputation`)).body.score).toBe(0);
    await expectLedgerOk(server);
  });
});

describe("idempotency", () => {
  test("a replay returns the same payment once; another body with the key is 409", async () => {
    const [payer, payee] = await pair(10);
    const body = { toAgentId: payee.id, amount: 2, currency: "USDC" };
    const first = await send(payer, body, { "idempotency-key": "order-1" });
    const again = await send(payer, body, { "idempotency-key": "order-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await server.balance(payer)).toEqual({ available: 8, held: 0 });
    const other = await send(payer, { ...body, amount: 3 }, { "idempotency-key": "order-1" });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe("IDEMPOTENCY_KEY_REUSED");
    // Keys are per agent: another agent may use the same key.
    const [payer2] = await pair(10);
    expect((await send(payer2, body, { "idempotency-key": "order-1" })).body.id).not.toBe(first.body.id);
    expect((await send(payer, body, { "idempotency-key": "x".repeat(256) })).status).toBe(400);
    await expectLedgerOk(server);
  });

  test("concurrent requests with one key pay once", async () => {
    const [payer, payee] = await pair(10);
    const body = { toAgentId: payee.id, amount: 1, currency: "USDC" };
    const replies = await Promise.all(Array.from({ length: 20 }, () => send(payer, body, { "idempotency-key": "burst" })));
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    expect(await server.balance(payer)).toEqual({ available: 9, held: 0 });
  });
});

describe("concurrency", () => {
  test("200 concurrent payments racing for one balance never overdraw it", async () => {
    const [payer, payee] = await pair(50);
    await server.admin("PUT", `/admin/agents/${payer.id}/rate-limit`, { limit: 10_000 });
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => send(payer, { toAgentId: payee.id, amount: 0.5, currency: "USDC" })),
    );
    const ok = replies.filter((reply) => reply.status === 201).length;
    const refused = replies.filter((reply) => reply.status === 400 && reply.body.error === "INSUFFICIENT_BALANCE").length;
    expect(ok).toBe(100);
    expect(refused).toBe(100);
    expect(await server.balance(payer)).toEqual({ available: 0, held: 0 });
    expect(await server.balance(payee)).toEqual({ available: 50, held: 0 });
    await expectLedgerOk(server);
  });
});

describe("wallet reads", () => {
  test("history pages newest first with limit and offset; bad paging is 400", async () => {
    const [payer, payee] = await pair(20);
    for (let i = 1; i <= 5; i++) await send(payer, { toAgentId: payee.id, amount: i, currency: "USDC" });
    const page = (await server.request("GET", "/wallets/history?limit=2&offset=1", { key: payer.apiKey })).body;
    expect(page.pagination).toEqual({ total: 6, limit: 2, offset: 1, hasMore: true, nextAfter: expect.any(String) });
    expect(page.data.map((entry: { amount: number }) => entry.amount)).toEqual([-4, -3]);
    for (const query of ["limit=0", "limit=101", "offset=-1", "limit=abc"]) {
      const reply = await server.request("GET", `/wallets/history?${query}`, { key: payer.apiKey });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe("VALIDATION_ERROR");
    }
  });

  test("balance lists all five currencies with available and held", async () => {
    const [payer] = await pair(3, "EUR");
    const reply = (await server.request("GET", "/wallets/balance", { key: payer.apiKey })).body;
    expect(reply.agentId).toBe(payer.id);
    expect(reply.balances).toEqual([
      { currency: "USDC", available: 0, held: 0 },
      { currency: "USDT", available: 0, held: 0 },
      { currency: "USD", available: 0, held: 0 },
      { currency: "EUR", available: 3, held: 0 },
      { currency: "BTC", available: 0, held: 0 },
    ]);
  });
});

describe("operator deposits", () => {
  test("bad deposits are 400/404 and change nothing", async () => {
    const agent = await server.register();
    const unknown = await server.admin("POST", "/admin/deposits", { agentId: crypto.randomUUID(), amount: 1, currency: "USDC" });
    expect(unknown.status).toBe(404);
    expect((await server.admin("POST", "/admin/deposits", { agentId: agent.id, amount: 1.001, currency: "USD" })).status).toBe(400);
    expect((await server.admin("POST", "/admin/deposits", { agentId: agent.id, amount: -1, currency: "USD" })).status).toBe(400);
    expect(await server.balance(agent, "USD")).toEqual({ available: 0, held: 0 });
    await expectLedgerOk(server);
  });
});
