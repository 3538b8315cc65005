import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startServer, type TestServer } from "./helpers/server";

let server: TestServer;
let noAdmin: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DEFAULT: "100", RATE_LIMIT_PUBLIC: "300", RATE_LIMIT_WINDOW_SECONDS: "3600" } });
  noAdmin = await startServer({ env: { ADMIN_API_KEY: "" } });
});
afterAll(async () => {
  await server.close();
  await noAdmin.close();
});

describe("rate limit", () => {
  test("request 101 in a window is 429 with Retry-After; headers count down", async () => {
    const agent = await server.register();
    const first = await server.request("GET", "/agents/me", { key: agent.apiKey });
    expect(first.headers.get("ratelimit-limit")).toBe("100");
    expect(first.headers.get("ratelimit-remaining")).toBe("99");
    for (let i = 2; i <= 100; i++) {
      const reply = await server.request("GET", "/agents/me", { key: agent.apiKey });
      expect(reply.status).toBe(200);
    }
    const over = await server.request("GET", "/agents/me", { key: agent.apiKey });
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("RATE_LIMIT_EXCEEDED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("ratelimit-remaining")).toBe("0");
    // Another agent has its own window.
    const other = await server.register();
    expect((await server.request("GET", "/agents/me", { key: other.apiKey })).status).toBe(200);
  });

  test("the operator raises one agent's limit", async () => {
    const agent = await server.register();
    const set = await server.request("PUT", `/admin/agents/${agent.id}/rate-limit`, { key: ADMIN_KEY, body: { limit: 3 } });
    expect(set.status).toBe(200);
    expect(set.body.rateLimit).toBe(3);
    for (let i = 0; i < 3; i++) expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(200);
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(429);
    const bad = await server.request("PUT", `/admin/agents/${agent.id}/rate-limit`, { key: ADMIN_KEY, body: { limit: 0 } });
    expect(bad.status).toBe(400);
    const unknown = await server.request("PUT", `/admin/agents/${crypto.randomUUID()}/rate-limit`, { key: ADMIN_KEY, body: { limit: 5 } });
    expect(unknown.status).toBe(404);
  });
});

describe("operator API without ADMIN_API_KEY", () => {
  test("every /admin route answers 404", async () => {
    for (const [method, path] of [["GET", "/admin/ledger/check"], ["POST", "/admin/deposits"], ["PUT", `/admin/agents/${crypto.randomUUID()}/rate-limit`], ["POST", "/admin/clock/advance"]] as const) {
      const reply = await noAdmin.request(method, path, { key: "anything", body: method === "GET" ? undefined : {} });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toBe("NOT_FOUND");
    }
  });
});
