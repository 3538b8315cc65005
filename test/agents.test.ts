import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startServer, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const valid = { name: "Scout", ownerName: "Ada", ownerEmail: "ada@example.com" };

describe("registration", () => {
  test("returns the agent, both keys once, a wallet with every currency, and onboarding", async () => {
    const reply = await server.request("POST", "/agents/register", {
      body: { ...valid, description: "finds things", capabilities: ["search", "pay"] },
    });
    expect(reply.status).toBe(201);
    const { agent, apiKey, ownerKey, wallet, onboarding } = reply.body;
    expect(agent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent).toMatchObject({ name: "Scout", ownerName: "Ada", ownerEmail: "ada@example.com", description: "finds things", capabilities: ["search", "pay"], webhookUrl: null, score: 0, tier: "UNRATED" });
    expect(apiKey).toMatch(/^pp_[A-Za-z0-9_-]{43}$/);
    expect(ownerKey).toMatch(/^po_[A-Za-z0-9_-]{43}$/);
    expect(wallet.balances.map((row: { currency: string }) => row.currency).sort()).toEqual(["BTC", "EUR", "USD", "USDC", "USDT"]);
    expect(onboarding.docs).toBe("/swagger");
    const me = await server.request("GET", "/agents/me", { key: apiKey });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(agent.id);
    expect(JSON.stringify(me.body)).not.toContain(apiKey);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ["missing name", { ownerName: "Ada", ownerEmail: "ada@example.com" }],
    ["empty name", { ...valid, name: "" }],
    ["name too long", { ...valid, name: "x".repeat(101) }],
    ["name not a string", { ...valid, name: 42 }],
    ["missing ownerName", { name: "Scout", ownerEmail: "ada@example.com" }],
    ["missing ownerEmail", { name: "Scout", ownerName: "Ada" }],
    ["ownerEmail not an e-mail", { ...valid, ownerEmail: "not-an-email" }],
    ["description too long", { ...valid, description: "x".repeat(2001) }],
    ["capabilities not an array", { ...valid, capabilities: "search" }],
    ["capabilities with a number", { ...valid, capabilities: ["search", 1] }],
    ["too many capabilities", { ...valid, capabilities: Array.from({ length: 51 }, (_, i) => `c${i}`) }],
    ["webhookUrl not a URI", { ...valid, webhookUrl: "not a url" }],
    ["webhookUrl on loopback", { ...valid, webhookUrl: "http://127.0.0.1:9/hook" }],
    ["webhookUrl with another scheme", { ...valid, webhookUrl: "ftp://example.com/hook" }],
  ];
  test.each(invalid)("%s → 400 VALIDATION_ERROR and no agent", async (_, body) => {
    const before = (await server.ledgerCheck()).accounts;
    const reply = await server.request("POST", "/agents/register", { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(typeof reply.body.message).toBe("string");
    expect((await server.ledgerCheck()).accounts).toBe(before);
  });

  test("a body that is not an object → 400", async () => {
    for (const raw of ["[]", "null", "\"x\"", "{bad"]) {
      const reply = await server.request("POST", "/agents/register", { raw, headers: { "content-type": "application/json" } });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe("VALIDATION_ERROR");
    }
  });
});

describe("authentication", () => {
  test("missing, malformed and unknown keys are 401 UNAUTHORIZED", async () => {
    for (const authorization of [undefined, "Bearer", "Basic abc", "Bearer pp_unknown", "Bearer po_unknown", `Bearer ${ADMIN_KEY}`]) {
      const reply = await server.request("GET", "/agents/me", { headers: authorization ? { authorization } : {} });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: "UNAUTHORIZED", message: expect.any(String), requestId: reply.headers.get("request-id") });
    }
  });

  test("the owner key is not an agent key: 403, naming the key the route takes", async () => {
    const agent = await server.register();
    const reply = await server.request("GET", "/agents/me", { key: agent.ownerKey });
    expect([reply.status, reply.body.error, reply.body.message]).toEqual([403, "FORBIDDEN", "this is an owner key (po_…); this route takes the agent's API key (pp_…)"]);
  });

  test("401 comes before body validation", async () => {
    const reply = await server.request("POST", "/payments/send", { body: { nonsense: true } });
    expect(reply.status).toBe(401);
  });

  test("rotation gives a new key and kills the old one at once", async () => {
    const agent = await server.register();
    const rotated = await server.request("POST", "/agents/me/keys/rotate", { key: agent.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiKey).toMatch(/^pp_/);
    expect(rotated.body.apiKey).not.toBe(agent.apiKey);
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(401);
    const me = await server.request("GET", "/agents/me", { key: rotated.body.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(agent.id);
  });
});

describe("reputation", () => {
  test("a new agent has score 0, UNRATED, limit 100, no events", async () => {
    const agent = await server.register();
    const reply = await server.request("GET", `/agents/${agent.id}/reputation`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ agentId: agent.id, score: 0, tier: "UNRATED", maxPerTransaction: 100, events: [] });
  });

  test("non-UUID id is 400, unknown id is 404", async () => {
    expect((await server.request("GET", "/agents/not-a-uuid/reputation")).status).toBe(400);
    const unknown = await server.request("GET", `/agents/${crypto.randomUUID()}/reputation`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("NOT_FOUND");
  });
});

describe("errors", () => {
  test("unknown route → 404 NOT_FOUND", async () => {
    const reply = await server.request("GET", "/no/such/route");
    expect(reply.status).toBe(404);
    expect(reply.body.error).toBe("NOT_FOUND");
  });

  test("malformed JSON → 400 VALIDATION_ERROR", async () => {
    const agent = await server.register();
    const reply = await server.request("POST", "/payments/send", {
      key: agent.apiKey,
      raw: "{\"toAgentId\": ",
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
  });

  test("a body over 1 MiB → 413 PAYLOAD_TOO_LARGE", async () => {
    const reply = await server.request("POST", "/agents/register", {
      body: { ...valid, description: "x".repeat(1024 * 1024 + 10) },
    });
    expect(reply.status).toBe(413);
    expect(reply.body.error).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("OpenAPI", () => {
  test("/swagger/json documents every route with its auth and errors; the UI is served locally", async () => {
    const spec = (await server.request("GET", "/swagger/json")).body;
    expect(spec.info.version).toBe("0.6.0");
    const send = spec.paths["/payments/send"].post;
    expect(send.security).toEqual([{ agentKey: [] }]);
    expect(Object.keys(send.responses)).toEqual(expect.arrayContaining(["400", "401", "403", "404", "409", "429"]));
    expect(spec.paths["/agents/register"].post.security).toEqual([]);
    const ui = await server.request("GET", "/swagger");
    expect(ui.status).toBe(200);
    expect(String(ui.body)).toContain("/swagger/assets/scalar.js");
    const script = await fetch(`${server.url}/swagger/assets/scalar.js`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});

describe("operator routes", () => {
  test("agent keys and wrong keys are 401 on /admin", async () => {
    const agent = await server.register();
    for (const key of [agent.apiKey, "wrong"]) {
      const reply = await server.request("GET", "/admin/ledger/check", { key });
      expect(reply.status).toBe(401);
    }
  });

  test("the operator key is not accepted on agent routes", async () => {
    expect((await server.request("GET", "/wallets/balance", { key: ADMIN_KEY })).status).toBe(401);
  });
});
