// Security checks over the whole API, driven by the OpenAPI document so new routes are covered too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { operations as operationsOf, type Spec } from "./helpers/operations";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let spec: Spec;
let a: Agent;
let b: Agent;
beforeAll(async () => {
  server = await startServer();
  spec = (await server.request("GET", "/swagger/json")).body;
  a = await server.register();
  b = await server.register();
  await server.deposit(a.id, 100);
});
afterAll(() => server.close());

const operations = () => operationsOf(spec);

describe("authentication on every route", () => {
  test("every agent route answers 401 without a key, with a forged key and with the operator key", async () => {
    const agentRoutes = operations().filter((op) => op.scheme === "agentKey");
    expect(agentRoutes.length).toBeGreaterThan(10);
    for (const op of agentRoutes) {
      for (const authorization of [undefined, "Bearer pp_forged", `Bearer ${ADMIN_KEY}`]) {
        const reply = await server.request(op.method, op.path, {
          headers: authorization ? { authorization } : {},
          body: op.method === "GET" || op.method === "DELETE" ? undefined : {},
        });
        expect({ route: `${op.method} ${op.template}`, status: reply.status }).toEqual({ route: `${op.method} ${op.template}`, status: 401 });
        expect(reply.body.error).toBe("UNAUTHORIZED");
      }
    }
  });

  test("every operator route answers 401 to agent and owner keys", async () => {
    const adminRoutes = operations().filter((op) => op.scheme === "adminKey");
    expect(adminRoutes.length).toBeGreaterThan(3);
    for (const op of adminRoutes) {
      for (const key of [a.apiKey, a.ownerKey]) {
        const reply = await server.request(op.method, op.path, { key, body: op.method === "GET" ? undefined : {} });
        expect({ route: `${op.method} ${op.template}`, status: reply.status }).toEqual({ route: `${op.method} ${op.template}`, status: 401 });
      }
    }
  });

  test("public routes are exactly the ones the spec names, plus readiness, the home page and docs", () => {
    const publicRoutes = operations()
      .filter((op) => op.scheme === "public")
      .map((op) => `${op.method} ${op.template}`)
      .sort();
    const allowed = new Set([
      "GET /", // the home page: links to the docs, the console, llms.txt and /mcp, nothing else
      "GET /health",
      "GET /health/ready",
      "POST /agents/register",
      "GET /agents/{id}/reputation",
      "GET /services/discover",
      "GET /services/{id}",
      // OAuth for MCP hosts (issue 26): the metadata documents and dynamic client registration.
      "GET /.well-known/oauth-protected-resource",
      "GET /.well-known/oauth-authorization-server",
      "POST /oauth/register",
    ]);
    for (const route of publicRoutes) expect(allowed.has(route) ? route : `unexpected public route ${route}`).toBe(route);
  });
});

describe("secrets", () => {
  test("keys appear only in the registration and rotation answers, never in logs or later responses", async () => {
    const agent = await server.register();
    const rotated = (await server.request("POST", "/agents/me/keys/rotate", { key: agent.apiKey })).body.apiKey as string;
    const responses = [
      await server.request("GET", "/agents/me", { key: rotated }),
      await server.request("GET", `/agents/${agent.id}/reputation`),
      await server.request("GET", "/wallets/balance", { key: rotated }),
      await server.request("GET", "/wallets/history", { key: rotated }),
    ];
    for (const reply of responses) {
      const text = JSON.stringify(reply.body);
      for (const secret of [agent.apiKey, agent.ownerKey, rotated]) expect(text).not.toContain(secret);
    }
    await Bun.sleep(100); // the request log is flushed every 50 ms
    const logs = server.logs.join("");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [agent.apiKey, agent.ownerKey, rotated, ADMIN_KEY]) expect(logs).not.toContain(secret);
  });
});

describe("another agent's resources", () => {
  test("every route that takes an id answers a third agent 404, never data", async () => {
    await server.deposit(b.id, 100);
    const post = async (agent: Agent, path: string, body: unknown) => {
      const reply = await server.request("POST", path, { key: agent.apiKey, body });
      if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    const payment = await post(a, "/payments/send", { toAgentId: b.id, amount: 1, currency: "USDC" });
    const message = await post(a, "/messages", { recipientId: b.id, subject: "s", body: "b" });
    const negotiation = await post(a, "/negotiations", { counterpartyId: b.id, subject: "s", offer: { amount: 1 } });
    const bet = await post(a, "/betting", { description: "d", condition: "c", amount: 1, currency: "USDC" });
    await post(b, `/betting/${bet.id}/accept`, {});
    const contract = await post(a, "/contracts", {
      counterpartyId: b.id, title: "t", description: "d", escrowAmount: 1, currency: "USDC",
      conditions: [{ id: "c1", type: "delivery", description: "d", params: {} }],
    });
    const loanOffer = await post(a, "/lending/offers", { amount: 5, currency: "USDC", interestRate: 1, durationDays: 5, collateralPercent: 0 });
    const openOffer = await post(a, "/lending/offers", { amount: 5, currency: "USDC", interestRate: 1, durationDays: 5, collateralPercent: 0 });
    const loan = await post(b, "/lending/borrow", { offerId: loanOffer.id });
    const subscription = await post(a, "/subscriptions", { recipientId: b.id, amount: 1, currency: "USDC", frequency: "DAILY" });
    const service = await post(b, "/services", { name: "n", description: "", category: "c", price: 1, currency: "USDC", pricingUnit: "FIXED" });
    const quote = await post(a, "/quotes", { serviceId: service.id });
    const booking = await post(a, "/bookings", { quoteId: quote.id });

    const c = await server.register();
    await server.deposit(c.id, 50);
    const attempts: [string, string, unknown?][] = [
      ["GET", `/payments/${payment.id}`],
      ["GET", `/messages/${message.id}`],
      ["POST", `/messages/${message.id}/read`],
      ["GET", `/negotiations/${negotiation.id}`],
      ["POST", `/negotiations/${negotiation.id}/counter`, { offer: {} }],
      ["POST", `/negotiations/${negotiation.id}/accept`],
      ["POST", `/negotiations/${negotiation.id}/reject`],
      ["GET", `/betting/${bet.id}`],
      ["POST", `/betting/${bet.id}/resolve`, { outcome: "MET" }],
      ["DELETE", `/betting/${bet.id}`],
      ["GET", `/contracts/${contract.id}`],
      ["POST", `/contracts/${contract.id}/sign`],
      ["POST", `/contracts/${contract.id}/fulfill`, { conditionId: "c1" }],
      ["POST", `/contracts/${contract.id}/cancel`],
      ["DELETE", `/lending/offers/${openOffer.id}`],
      ["GET", `/lending/loans/${loan.id}`],
      ["POST", `/lending/repay/${loan.id}`, { amount: 1 }],
      ["GET", `/subscriptions/${subscription.id}`],
      ["DELETE", `/subscriptions/${subscription.id}`],
      ["PATCH", `/services/${service.id}`, { price: 2 }],
      ["DELETE", `/services/${service.id}`],
      ["POST", "/bookings", { quoteId: quote.id }],
      ["GET", `/bookings/${booking.id}`],
      ["GET", `/wallets/withdrawals/${crypto.randomUUID()}`],
    ];
    const before = await server.ledgerCheck();
    for (const [method, path, body] of attempts) {
      const reply = await server.request(method, path, { key: c.apiKey, body: method === "GET" || method === "DELETE" ? undefined : (body ?? {}) });
      expect({ route: `${method} ${path}`, status: reply.status }).toEqual({ route: `${method} ${path}`, status: 404 });
      const text = JSON.stringify(reply.body);
      expect(text).not.toContain(a.id);
      expect(text).not.toContain(b.id);
    }
    expect((await server.ledgerCheck()).entries).toBe(before.entries);
  });
});
