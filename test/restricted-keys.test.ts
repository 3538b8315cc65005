// Restricted keys (issue 26): a pp_r_ key's total budget holds under 50 concurrent payments, expiry and
// revocation take effect on the next request, each scope opens its routes and tools and refuses the
// others (generated from the one scope table), a key never mints a wider key nor rotates the agent key,
// and the ledger check holds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SCOPE_ROUTES, SCOPES, type Scope } from "../src/keys/scopes";
import { TOOLS } from "../src/mcp/tools";
import { expectLedgerOk } from "./helpers/ledger";
import { operations } from "./helpers/operations";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let payee: Agent;
beforeAll(async () => {
  server = await startServer();
  payee = await server.register();
});
afterAll(() => server.close());

async function funded(amount = 1_000): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}

const makeKey = (key: string, body: Record<string, unknown>) => server.request("POST", "/agents/me/keys", { key, body });
async function restricted(agent: Agent, body: Record<string, unknown>, maker = agent.apiKey): Promise<{ id: string; apiKey: string }> {
  const made = await makeKey(maker, { name: "sub-agent", ...body });
  expect(made.status).toBe(201);
  expect(made.body.apiKey).toStartWith("pp_r_");
  return made.body;
}
const pay = (key: string, amount: number, to = payee.id) => server.request("POST", "/payments/send", { key, body: { toAgentId: to, amount, currency: "USDC" } });

describe("budgets", () => {
  test("50 parallel payments of A against a total budget of 10 × A: exactly 10 go through, 40 are KEY_BUDGET_EXCEEDED", async () => {
    const agent = await funded(1_000);
    const key = await restricted(agent, { scopes: ["pay", "read"], budgets: { USDC: { total: 25 } } });
    const replies = await Promise.all(Array.from({ length: 50 }, () => pay(key.apiKey, 2.5)));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 201).length).toBe(10);
    const refused = replies.filter((reply) => reply.status === 403);
    expect(refused.length).toBe(40);
    for (const reply of refused) expect(reply.body).toMatchObject({ error: "KEY_BUDGET_EXCEEDED", details: { remaining: 0, limit: 25 } });
    expect((await server.balance(agent, "USDC")).available).toBe(975);
    const listed = await server.request("GET", "/agents/me/keys", { key: agent.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ id: key.id, status: "ACTIVE", budgets: { USDC: { total: 25, spent: 25, remaining: 0, perTransaction: null } } });
    const sent = replies.find((reply) => reply.status === 201)!;
    expect(sent.body.keyId).toBe(key.id);
    await expectLedgerOk(server);
  });

  test("the budget per transaction and the allowlist refuse with what is left; the owner's policy still applies on top", async () => {
    const agent = await funded(1_000);
    const other = await server.register();
    const key = await restricted(agent, { scopes: ["pay"], budgets: { USDC: { perTransaction: 5, total: 100 } }, allowlist: [payee.id] });
    expect((await pay(key.apiKey, 6)).body).toMatchObject({ error: "KEY_BUDGET_EXCEEDED", details: { window: "transaction", limit: 5 } });
    expect((await pay(key.apiKey, 1, other.id)).body).toMatchObject({ error: "KEY_SCOPE_DENIED" });
    expect((await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { perTransaction: { USDC: 2 } } })).status).toBe(200);
    expect((await pay(key.apiKey, 3)).body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED" });
    expect((await pay(key.apiKey, 2)).status).toBe(201);
    await expectLedgerOk(server);
  });
});

describe("expiry and revocation", () => {
  test("an expired key is refused on the next request", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["read"], expiresInSeconds: 120 });
    expect((await server.request("GET", "/wallets/balance", { key: key.apiKey })).status).toBe(200);
    await server.advance(121);
    expect((await server.request("GET", "/wallets/balance", { key: key.apiKey })).status).toBe(401);
  });

  test("a revoked key, and every key made from it, is refused on the next request", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["read", "pay", "manage"] });
    const child = await restricted(agent, { scopes: ["read"] }, key.apiKey);
    expect((await server.request("GET", "/wallets/balance", { key: child.apiKey })).status).toBe(200);
    const revoked = await server.request("DELETE", `/agents/me/keys/${key.id}`, { key: agent.apiKey });
    expect(revoked.body).toMatchObject({ id: key.id, status: "REVOKED" });
    expect((await server.request("GET", "/wallets/balance", { key: key.apiKey })).status).toBe(401);
    expect((await server.request("GET", "/wallets/balance", { key: child.apiKey })).status).toBe(401);
    expect((await server.request("DELETE", `/agents/me/keys/${key.id}`, { key: (await server.register()).apiKey })).status).toBe(404);
  });
});

describe("scopes", () => {
  const sample = (route: string) => {
    const [method, path] = route.split(" ") as [string, string];
    return { method, path: path.replace(/:[A-Za-z]+/g, "0198f3a1-0b2c-7d3e-8f4a-5b6c7d8e9f01") };
  };
  const other = (scope: Scope): Scope => SCOPES[(SCOPES.indexOf(scope) + 1) % SCOPES.length]!;

  for (const scope of SCOPES) {
    test(`"${scope}" opens ${SCOPE_ROUTES[scope][0]} and refuses ${SCOPE_ROUTES[other(scope)][0]}`, async () => {
      const agent = await funded();
      const key = await restricted(agent, { scopes: [scope] });
      const allowed = sample(SCOPE_ROUTES[scope][0]!);
      const allowedReply = await server.request(allowed.method, allowed.path, { key: key.apiKey, body: allowed.method === "GET" ? undefined : {} });
      expect(allowedReply.body?.error).not.toBe("KEY_SCOPE_DENIED");
      expect(allowedReply.status).not.toBe(401);
      const refused = sample(SCOPE_ROUTES[other(scope)][0]!);
      const refusedReply = await server.request(refused.method, refused.path, { key: key.apiKey, body: refused.method === "GET" ? undefined : {} });
      expect(refusedReply.status).toBe(403);
      expect(refusedReply.body).toMatchObject({ error: "KEY_SCOPE_DENIED", details: { scope: other(scope) } });
    });
  }

  test("every agent route of the OpenAPI document is in a scope, or is one no restricted key may call", async () => {
    // Rotating the agent key is for the agent key alone; a key reading itself is open to every key.
    const outsideEveryScope = new Set(["POST /agents/me/keys/rotate", "GET /agents/me/keys/current"]);
    const routes = new Set(SCOPES.flatMap((scope) => SCOPE_ROUTES[scope]));
    const spec = (await server.request("GET", "/swagger/json")).body;
    const agentRoutes = operations(spec)
      .filter((operation) => operation.schemes.includes("agentKey"))
      .map((operation) => `${operation.method} ${operation.template.replace(/\{([^}]+)\}/g, ":$1")}`);
    expect(agentRoutes.length).toBeGreaterThan(50);
    expect(agentRoutes.filter((route) => !routes.has(route) && !outsideEveryScope.has(route))).toEqual([]);
  });

  test("every MCP tool's route is in the scope table", () => {
    const routes = new Set(SCOPES.flatMap((scope) => SCOPE_ROUTES[scope]));
    expect(TOOLS.map((tool) => `${tool.method} ${tool.path}`).filter((route) => !routes.has(route))).toEqual([]);
  });

  test("MCP lists only the tools of the key's scopes; another tool is a tool error naming its scope", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["read"] });
    const client = new Client({ name: "agentbank-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.apiKey}` } } }));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("get_balances");
      expect(names).not.toContain("send_payment");
      expect(names).not.toContain("set_webhook");
      const result = (await client.callTool({ name: "send_payment", arguments: { toAgentId: payee.id, amount: 1, currency: "USDC" } })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain("KEY_SCOPE_DENIED");
      expect(result.content[0]!.text).toContain('"pay"');
      const balances = (await client.callTool({ name: "get_balances", arguments: {} })) as { isError?: boolean };
      expect(balances.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe("a key never widens itself", () => {
  test("a restricted key makes only narrower keys: scopes, budget left, expiry and allowlist", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["pay", "manage"], budgets: { USDC: { total: 10, perTransaction: 5 } }, allowlist: [payee.id], expiresInSeconds: 3600 });
    expect((await pay(key.apiKey, 4)).status).toBe(201);
    const narrow = { name: "child", scopes: ["pay"], budgets: { USDC: { total: 6, perTransaction: 5 } }, allowlist: [payee.id], expiresInSeconds: 600 };
    for (const wider of [
      { ...narrow, scopes: ["pay", "withdraw"] },
      { ...narrow, budgets: { USDC: { total: 7, perTransaction: 5 } } },
      { ...narrow, budgets: { USDC: { total: 6 } } },
      { ...narrow, budgets: {} },
      { ...narrow, allowlist: null },
      { ...narrow, expiresInSeconds: 7200 },
    ]) {
      const refused = await makeKey(key.apiKey, wider);
      expect({ wider, status: refused.status, error: refused.body.error }).toEqual({ wider, status: 403, error: "KEY_SCOPE_DENIED" });
    }
    const child = await makeKey(key.apiKey, narrow);
    expect(child.status).toBe(201);
    expect(child.body.parentKeyId).toBe(key.id);
    // The child's spending counts against its parent's budget too.
    expect((await pay(child.body.apiKey, 5)).status).toBe(201);
    expect((await pay(key.apiKey, 2)).body).toMatchObject({ error: "KEY_BUDGET_EXCEEDED", details: { remaining: 1 } });
    await expectLedgerOk(server);
  });

  test("a key without manage makes no keys; no restricted key rotates the agent key; the owner key may make one", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["read", "pay", "manage"] });
    const reader = await restricted(agent, { scopes: ["read"] });
    expect((await makeKey(reader.apiKey, { name: "x", scopes: ["read"] })).body).toMatchObject({ error: "KEY_SCOPE_DENIED", details: { scope: "manage" } });
    const rotate = await server.request("POST", "/agents/me/keys/rotate", { key: key.apiKey });
    expect(rotate.status).toBe(403);
    expect(rotate.body.error).toBe("KEY_SCOPE_DENIED");
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(200);
    expect((await makeKey(agent.ownerKey, { name: "from the owner", scopes: ["read"] })).status).toBe(201);
    expect((await makeKey(agent.apiKey, { name: "too long", scopes: ["read"], expiresInSeconds: 400 * 86_400 })).status).toBe(400);
  });
});

describe("which key acted", () => {
  test("history, payments and approvals name the restricted key to its agent; the payee's side names none", async () => {
    const agent = await funded();
    const receiver = await server.register();
    const key = await restricted(agent, { scopes: ["read", "pay"] });
    const paid = await pay(key.apiKey, 3, receiver.id);
    expect(paid.status).toBe(201);
    const byAgentKey = await pay(agent.apiKey, 1, receiver.id);
    const history = (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data;
    expect(history.find((entry: any) => entry.reference.id === paid.body.id)).toMatchObject({ type: "PAYMENT_SENT", keyId: key.id });
    expect(history.find((entry: any) => entry.reference.id === byAgentKey.body.id)).toMatchObject({ type: "PAYMENT_SENT", keyId: null });
    expect(history.find((entry: any) => entry.type === "DEPOSIT")).toMatchObject({ keyId: null });
    const theirs = (await server.request("GET", "/wallets/history", { key: receiver.apiKey })).body.data;
    expect(theirs.find((entry: any) => entry.reference.id === paid.body.id)).toMatchObject({ type: "PAYMENT_RECEIVED", keyId: null });
    expect((await server.request("GET", `/payments/${paid.body.id}`, { key: key.apiKey })).body.keyId).toBe(key.id);
    expect((await server.request("GET", `/payments/${paid.body.id}`, { key: receiver.apiKey })).body.keyId).toBeNull();

    expect((await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { approvalAbove: { USDC: 10 } } })).status).toBe(200);
    const held = await pay(key.apiKey, 20, receiver.id);
    expect(held.status).toBe(202);
    const queue = (await server.request("GET", "/owner/approvals", { key: agent.ownerKey })).body.data;
    expect(queue[0]).toMatchObject({ status: "PENDING", kind: "PAYMENT", keyId: key.id });
    const approved = await server.request("POST", `/owner/approvals/${queue[0].id}/approve`, { key: agent.ownerKey });
    expect(approved.body).toMatchObject({ status: "APPROVED", keyId: key.id });
    await expectLedgerOk(server);
  });

  test("a key reads itself whatever its scopes, and its last use is kept to the minute", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["pay"] });
    expect((await server.request("GET", "/agents/me/keys/current", { key: agent.apiKey })).body).toEqual({ agentId: agent.id, key: null });
    const first = await server.request("GET", "/agents/me/keys/current", { key: key.apiKey });
    expect(first.body).toMatchObject({ agentId: agent.id, key: { id: key.id, scopes: ["pay"], status: "ACTIVE" } });
    const listed = async () => (await server.request("GET", "/agents/me/keys", { key: agent.apiKey })).body.data.find((row: any) => row.id === key.id);
    const used = (await listed()).lastUsedAt;
    expect(used).not.toBeNull();
    await pay(key.apiKey, 1);
    expect((await listed()).lastUsedAt).toBe(used);
    await server.advance(61);
    await pay(key.apiKey, 1);
    expect(Date.parse((await listed()).lastUsedAt)).toBeGreaterThan(Date.parse(used));
  });

  test("agentbank mcp over stdio lists only the tools of the key's scopes", async () => {
    const agent = await funded();
    const key = await restricted(agent, { scopes: ["pay"] });
    const client = new Client({ name: "agentbank-test", version: "1.0.0" });
    const main = new URL("../src/main.ts", import.meta.url).pathname;
    await client.connect(new StdioClientTransport({ command: "bun", args: ["run", main, "mcp", "--url", server.url, "--key", key.apiKey], env: process.env as Record<string, string>, stderr: "pipe" }));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(["send_payment"]);
      const result = (await client.callTool({ name: "get_balances", arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain("KEY_SCOPE_DENIED");
    } finally {
      await client.close();
    }
  });
});
