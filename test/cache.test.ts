// The SQLite process keeps the rows every request reads in memory (src/db/cache.ts): the agent's row,
// key hash → agent, a restricted key by its hash. Each test here first reads the row through a request
// (so it is cached), then changes it through the API and checks that the very next request sees the
// change: the write forgot or revised the cached copy. On PostgreSQL nothing of these is cached, and
// the same answers hold.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } })));
afterAll(() => server.close());

const me = (key: string) => server.request("GET", "/agents/me", { key });

describe("a change of a cached agent row is seen by the next request", () => {
  let agent: Agent;
  let payee: Agent;
  beforeAll(async () => {
    agent = await server.register();
    payee = await server.register();
    await server.deposit(agent.id, 10, "USD");
    expect((await me(agent.apiKey)).status).toBe(200);
  });

  test("webhook URL", async () => {
    expect((await me(agent.apiKey)).body.webhookUrl).toBeNull();
    const url = "http://127.0.0.1:9/hook";
    expect((await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: url } })).status).toBe(200);
    expect((await me(agent.apiKey)).body.webhookUrl).toBe(url);
  });

  test("rate limit set by the operator", async () => {
    const setLimit = (limit: number) => server.request("PUT", `/admin/agents/${agent.id}/rate-limit`, { key: ADMIN_KEY, body: { limit } });
    expect((await setLimit(1)).status).toBe(200);
    expect((await me(agent.apiKey)).status).toBe(429);
    expect((await setLimit(1_000)).status).toBe(200);
    expect((await me(agent.apiKey)).status).toBe(200);
  });

  test("score, moved by a payment", async () => {
    const before = (await me(agent.apiKey)).body.score;
    expect((await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USD" } })).status).toBe(201);
    expect((await me(agent.apiKey)).body.score).toBe(before + 1);
    const reputation = (await server.request("GET", `/agents/${agent.id}/reputation`)).body;
    expect(reputation.score).toBe(before + 1);
    expect(reputation.events[0]).toMatchObject({ reason: "PAYMENT_COMPLETED", change: 1 });
  });

  test("owner's policy", async () => {
    expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).status).toBe(200);
    expect((await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { perTransaction: { USD: 0.5 } } })).status).toBe(200);
    const refused = await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USD" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("POLICY_LIMIT_EXCEEDED");
  });

  test("API key rotation: the old key is refused at once, the new one works", async () => {
    const rotated = await server.request("POST", "/agents/me/keys/rotate", { key: agent.apiKey });
    expect(rotated.status).toBe(200);
    expect((await me(agent.apiKey)).status).toBe(401);
    expect((await me(rotated.body.apiKey)).body.id).toBe(agent.id);
    agent = { ...agent, apiKey: rotated.body.apiKey };
  });

  test("owner key rotation: the old key is refused at once, the new one works", async () => {
    const rotated = await server.request("POST", "/owner/key/rotate", { key: agent.ownerKey });
    expect(rotated.status).toBe(200);
    expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).status).toBe(401);
    expect((await server.request("GET", "/owner/policy", { key: rotated.body.ownerKey })).status).toBe(200);
  });

  afterAll(async () => expectLedgerOk(server));
});

describe("a change of a cached restricted key is seen by the next request", () => {
  let agent: Agent;
  beforeAll(async () => (agent = await server.register()));
  const makeKey = async (scopes = ["read"]) => {
    const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "reader", scopes } });
    expect(made.status).toBe(201);
    return made.body as { id: string; apiKey: string };
  };

  test("its last use", async () => {
    const key = await makeKey();
    const current = () => server.request("GET", "/agents/me/keys/current", { key: key.apiKey });
    // The first request reads the key (unused yet) and records its use.
    expect((await current()).body.key.lastUsedAt).toBeNull();
    expect((await current()).body.key.lastUsedAt).not.toBeNull();
  });

  test("its revocation, and that of the keys made from it", async () => {
    const parent = await makeKey(["read", "manage"]);
    const made = await server.request("POST", "/agents/me/keys", { key: parent.apiKey, body: { name: "child", scopes: ["read"] } });
    expect(made.status).toBe(201);
    expect((await me(parent.apiKey)).status).toBe(200);
    expect((await me(made.body.apiKey)).status).toBe(200);
    expect((await server.request("DELETE", `/agents/me/keys/${parent.id}`, { key: agent.apiKey })).status).toBe(200);
    expect((await me(parent.apiKey)).status).toBe(401);
    expect((await me(made.body.apiKey)).status).toBe(401);
  });
});
