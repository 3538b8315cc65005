// Security checks over the whole API, driven by the OpenAPI document so new routes are covered too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let spec: { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
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

const operations = () =>
  Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, crypto.randomUUID()),
      template: path,
      scheme: Object.keys(operation.security?.[0] ?? {})[0] ?? "public",
    })),
  );

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

  test("public routes are exactly the ones the spec names, plus docs", () => {
    const publicRoutes = operations()
      .filter((op) => op.scheme === "public")
      .map((op) => `${op.method} ${op.template}`)
      .sort();
    const allowed = new Set([
      "GET /health",
      "POST /agents/register",
      "GET /agents/{id}/reputation",
      "GET /services/discover",
      "GET /services/{id}",
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
  test("a payment is 404 to a third agent, never its data", async () => {
    const payment = (await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 1, currency: "USDC" } })).body;
    const c = await server.register();
    const reply = await server.request("GET", `/payments/${payment.id}`, { key: c.apiKey });
    expect(reply.status).toBe(404);
    expect(JSON.stringify(reply.body)).not.toContain(a.id);
  });
});
