// Errors an agent (or the model driving it) can act on: the field, what is allowed and what was sent;
// 405 with Allow for a wrong method; the balance that was missing; which kind of key a route takes;
// a Request-Id on every answer, in error bodies and in the log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let agent: Agent;
beforeAll(async () => {
  server = await startServer();
  agent = await server.register();
});
afterAll(() => server.close());

const send = (body: unknown, key = agent.apiKey) => server.request("POST", "/payments/send", { key, body });

describe("validation names the field, the allowed values and what was sent", () => {
  test.each([
    [{ toAgentId: "x", amount: 1, currency: "USDC" }, "toAgentId must be a UUID (got \"x\")"],
    [{ toAgentId: crypto.randomUUID(), amount: 1, currency: "XRP" }, "currency must be one of USDC, USDT, USD, EUR, BTC (got \"XRP\")"],
    [{ toAgentId: crypto.randomUUID(), amount: -1, currency: "USDC" }, "amount must be a number from 0.01 to 1000000000 (got -1)"],
    [{ toAgentId: crypto.randomUUID(), currency: "USDC" }, "amount is required: a number from 0.01 to 1000000000"],
    [{ toAgentId: crypto.randomUUID(), amount: 1, currency: "USDC", memo: "x" }, "memo is not a field of this request (fields: toAgentId, amount, currency, reason, metadata)"],
    [[1], "body must be an object (got [1])"],
  ])("%j", async (body, message) => {
    const reply = await send(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(reply.body.message).toStartWith(message);
    expect(reply.body.details[0]).toMatchObject({ field: expect.any(String), message: expect.stringContaining(message.split(" ")[0]!) });
  });

  test("query parameters are named too", async () => {
    for (const [query, message] of [["limit=0", "limit must be a whole number from 1 to 100 (got 0)"], ["limit=abc", "limit must be a whole number from 1 to 100 (got \"abc\")"], ["offset=-1", "offset must be a whole number from 0 to 1000000000 (got -1)"]]) {
      const reply = await server.request("GET", `/wallets/history?${query}`, { key: agent.apiKey });
      expect([query, reply.status, reply.body.message]).toEqual([query, 400, message]);
    }
  });
});

describe("method, balance and key", () => {
  test("a wrong method is 405 with Allow, also where a parameterised route would have matched", async () => {
    for (const [method, path, allow] of [["GET", "/payments/send", "POST"], ["DELETE", "/wallets/balance", "GET"], ["PUT", "/negotiations", "POST"], ["PATCH", `/payments/${crypto.randomUUID()}`, "GET"]] as const) {
      const reply = await server.request(method, path, { key: agent.apiKey });
      expect([method, path, reply.status, reply.headers.get("allow"), reply.body.error]).toEqual([method, path, 405, allow, "METHOD_NOT_ALLOWED"]);
    }
    expect((await server.request("GET", "/no/such/path", { key: agent.apiKey })).status).toBe(404);
  });

  test("INSUFFICIENT_BALANCE says what is available and what was needed", async () => {
    const payer = await server.register();
    const payee = await server.register();
    await server.deposit(payer.id, 3.5);
    const reply = await send({ toAgentId: payee.id, amount: 10, currency: "USDC" }, payer.apiKey);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: "INSUFFICIENT_BALANCE", message: "not enough USDC available: 3.5 USDC available, 10 USDC needed", details: { currency: "USDC", available: 3.5, needed: 10 } });
  });

  test("a key of the wrong kind is told which kind the route takes", async () => {
    const owner = await send({ toAgentId: crypto.randomUUID(), amount: 1, currency: "USDC" }, agent.ownerKey);
    expect([owner.status, owner.body.error, owner.body.message]).toEqual([403, "FORBIDDEN", "this is an owner key (po_…); this route takes the agent's API key (pp_…)"]);
    const missing = await server.request("GET", "/wallets/balance");
    expect(missing.body.message).toBe("missing key: send Authorization: Bearer <the agent's API key (pp_…)>");
    const approve = await server.request("POST", `/negotiations/${crypto.randomUUID()}/human-approve`, { key: "something" });
    expect(approve.body.message).toBe("not an agent (pp_…) or owner (po_…) key; this route takes the owner key (po_…)");
    const admin = await server.request("GET", "/admin/ledger/check", { key: agent.apiKey });
    expect([admin.status, admin.body.message]).toEqual([401, "this is an agent API key (pp_…); this route takes an operator key (pa_…, or ADMIN_API_KEY)"]);
  });
});

describe("request ids and health", () => {
  test("every answer has a Request-Id, echoed from the client when sane; errors carry it and so does the log", async () => {
    const ok = await server.request("GET", "/wallets/balance", { key: agent.apiKey });
    expect(ok.headers.get("request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await server.request("GET", "/wallets/balance", { key: agent.apiKey, headers: { "x-request-id": "trace-42" } });
    expect(mine.headers.get("request-id")).toBe("trace-42");
    const failed = await server.request("GET", "/payments/nope", { key: agent.apiKey, headers: { "request-id": "trace-43" } });
    expect(failed.body.requestId).toBe("trace-43");
    await Bun.sleep(100);
    const line = server.logs.join("").split("\n").find((text) => text.includes('"requestId":"trace-43"'));
    expect(JSON.parse(line!)).toMatchObject({ level: "warn", requestId: "trace-43", method: "GET", path: "/payments/nope", status: 400, code: "VALIDATION_ERROR", message: failed.body.message });
  });

  test("/health looks at the database; /health/ready is for orchestrators", async () => {
    expect((await server.request("GET", "/health")).body).toMatchObject({ status: "ok", database: "ok", version: "0.6.0" });
    expect((await server.request("GET", "/health/ready")).body).toEqual({ ready: true, reason: null });
  });
});
