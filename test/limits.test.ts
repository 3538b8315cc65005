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

describe("rate limit of restricted keys", () => {
  test("a restricted key that spends its window leaves the agent key its own; all the keys together stay bounded", async () => {
    const agent = await server.register();
    // L = 10: the agent key 10, each restricted key 5, the restricted keys together 10.
    expect((await server.request("PUT", `/admin/agents/${agent.id}/rate-limit`, { key: ADMIN_KEY, body: { limit: 10 } })).status).toBe(200);
    const keys: string[] = [];
    for (const name of ["leaked", "second", "third"]) {
      const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name, scopes: ["read"] } });
      expect(made.status).toBe(201);
      keys.push(made.body.apiKey);
    }
    const [leaked, second, third] = keys as [string, string, string];
    const me = async (key: string) => {
      const reply = await server.request("GET", "/agents/me", { key });
      return { status: reply.status, limit: reply.headers.get("ratelimit-limit"), remaining: reply.headers.get("ratelimit-remaining") };
    };

    // The leaked read-only key spends its own window, and keeps trying.
    for (let left = 4; left >= 0; left--) expect(await me(leaked)).toEqual({ status: 200, limit: "5", remaining: String(left) });
    for (let i = 0; i < 5; i++) expect(await me(leaked)).toEqual({ status: 429, limit: "5", remaining: "0" });
    // The agent key has its own window: three keys made, this is its fourth request.
    expect(await me(agent.apiKey)).toEqual({ status: 200, limit: "10", remaining: "6" });

    // The leaked key's refused requests took nothing from the other keys: 5 of their 10 are left.
    for (let left = 4; left >= 1; left--) expect(await me(second)).toEqual({ status: 200, limit: "5", remaining: String(left) });
    // The headers describe the window that has the fewest left: here all the keys' together.
    expect(await me(third)).toEqual({ status: 200, limit: "10", remaining: "0" });
    expect(await me(third)).toEqual({ status: 429, limit: "10", remaining: "0" });
    // Bounded: the restricted keys made 10 requests, and the agent key still has its own.
    expect(await me(agent.apiKey)).toEqual({ status: 200, limit: "10", remaining: "5" });
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
