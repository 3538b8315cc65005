// /mcp within the same limits as the REST API (CONTRACT.md §11): every JSON-RPC message counts against
// the agent's rate limit, a batch holds at most 20 messages, a Host or Origin that is not the service's
// own is refused (DNS rebinding; the official conformance suite checks it too: mcp-conformance.test.ts), and tool arguments follow
// the route's schema — an idempotencyKey is never dropped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const RATE_LIMIT = 30;
const PUBLIC_NAME = "bank.example.com";
const ROOT = join(import.meta.dir, "..");

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    env: {
      RATE_LIMIT_DEFAULT: String(RATE_LIMIT),
      // One window for the whole file: a minute boundary in the middle of a test would reset the counts.
      RATE_LIMIT_WINDOW_SECONDS: "86400",
      MCP_ALLOWED_HOSTS: PUBLIC_NAME,
    },
  });
});
afterAll(async () => {
  await server.close();
});

const listTools = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

/** One POST to /mcp with `messages` as its body (an array is a batch). */
async function rpc(agent: Agent, messages: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${agent.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(messages),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: { text: string }[] };
async function callTool(agent: Agent, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const reply = await rpc(agent, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
  expect({ status: reply.status, error: reply.body.error ?? null }).toEqual({ status: 200, error: null });
  return reply.body.result;
}

async function funded(amount: number): Promise<Agent> {
  const agent = await server.register();
  if (amount > 0) await server.deposit(agent.id, amount);
  return agent;
}

describe("rate limit and batches", () => {
  test("a batch holds at most 20 messages: 21 is refused with 413 and nothing runs, 20 are answered", async () => {
    const agent = await funded(0);
    const tooMany = await rpc(agent, Array.from({ length: 21 }, (_, index) => listTools(index)));
    expect(tooMany.status).toBe(413);
    expect(tooMany.body).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    expect(tooMany.body.message).toContain("20");
    const batch = await rpc(agent, Array.from({ length: 20 }, (_, index) => listTools(index)));
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(20);
    expect(batch.body.every((answer: { result?: { tools: unknown[] } }) => answer.result!.tools.length > 0)).toBe(true);
  });

  test("each message of a batch counts: after a batch of 20, the 11th single message is 429 with Retry-After", async () => {
    const agent = await funded(0);
    expect((await rpc(agent, Array.from({ length: 20 }, (_, index) => listTools(index)))).status).toBe(200);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof rpc>> | null = null;
    for (let index = 0; index < 11; index++) {
      last = await rpc(agent, listTools(index));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(last!.body).toMatchObject({ error: "RATE_LIMIT_EXCEEDED" });
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same count as REST's: the agent's REST calls are refused now too.
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(429);
  });

  test("once the agent's REST limit is spent, /mcp refuses tools/list too", async () => {
    const agent = await funded(0);
    for (let index = 0; index < RATE_LIMIT; index++) expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(200);
    const refused = await rpc(agent, listTools(1));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("a tool call is one message: it counts once, not again for the API request it makes", async () => {
    const agent = await funded(0);
    const reply = await rpc(agent, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_balances", arguments: {} } });
    expect(reply.body.result.isError).toBeUndefined();
    expect(reply.headers.get("ratelimit-remaining")).toBe(String(RATE_LIMIT - 1));
    const rest = await server.request("GET", "/agents/me", { key: agent.apiKey });
    expect(rest.headers.get("ratelimit-remaining")).toBe(String(RATE_LIMIT - 2));
  });
});

describe("Host and Origin (DNS rebinding)", () => {
  const own = () => new URL(server.url).host;

  test("a foreign Host or Origin is 403; the service's own names and the configured ones are answered", async () => {
    const agent = await funded(0);
    const port = new URL(server.url).port;
    const cases: [Record<string, string>, number][] = [
      [{ host: "evil.example" }, 403],
      [{ host: "evil.example", origin: "http://evil.example" }, 403],
      [{ origin: "http://evil.example" }, 403],
      [{ origin: "null" }, 403],
      [{ host: `127.0.0.1:${Number(port) + 1}` }, 403],
      [{ host: `evil.example:${port}` }, 403],
      [{}, 200],
      [{ host: own(), origin: `http://${own()}` }, 200],
      [{ host: `localhost:${port}`, origin: `http://localhost:${port}` }, 200],
      [{ host: `[::1]:${port}` }, 200],
      [{ host: PUBLIC_NAME, origin: `https://${PUBLIC_NAME}` }, 200],
      [{ host: `${PUBLIC_NAME.toUpperCase()}:8443` }, 200],
    ];
    for (const [headers, status] of cases) {
      const reply = await rpc(agent, listTools(1), headers);
      expect({ headers, status: reply.status }).toEqual({ headers, status });
      if (status === 403) expect(reply.body).toMatchObject({ error: "FORBIDDEN" });
    }
  });

  test("a foreign Host is refused before the key is looked at", async () => {
    const reply = await rpc({ apiKey: "pp_wrong" } as Agent, listTools(1), { host: "evil.example" });
    expect(reply.status).toBe(403);
  });
});

describe("tool arguments follow the route's schema", () => {
  test("send_payment: a numeric idempotencyKey or one with CRLF is a tool error and pays nothing; a string key twice pays once", async () => {
    const payer = await funded(20);
    const payee = await funded(0);
    const pay = (idempotencyKey: unknown) => callTool(payer, "send_payment", { toAgentId: payee.id, amount: 5, currency: "USDC", idempotencyKey });
    const numeric = await pay(123);
    expect(numeric.isError).toBe(true);
    expect(numeric.content[0]!.text).toStartWith("VALIDATION_ERROR: idempotencyKey must be a string");
    const crlf = await pay("a\r\nb");
    expect(crlf.isError).toBe(true);
    expect(crlf.content[0]!.text).toStartWith("VALIDATION_ERROR: idempotencyKey must be");
    expect(await server.balance(payer)).toEqual({ available: 20, held: 0 });
    const first = await pay("pay-once");
    const again = await pay("pay-once");
    expect([first.isError, again.isError]).toEqual([undefined, undefined]);
    expect(again.structuredContent.id).toBe(first.structuredContent.id);
    expect(await server.balance(payer)).toEqual({ available: 15, held: 0 });
    await expectLedgerOk(server);
  });

  test("path and query arguments of the wrong type, and a tool that takes no idempotencyKey, are tool errors", async () => {
    const agent = await funded(0);
    const wrongType = await callTool(agent, "get_history", { limit: "5" });
    expect(wrongType.content[0]!.text).toStartWith("VALIDATION_ERROR: limit must be");
    const object = await callTool(agent, "get_payment", { id: { toString: "x" } });
    expect(object.content[0]!.text).toStartWith("VALIDATION_ERROR: id must be");
    const dots = await callTool(agent, "get_payment", { id: ".." });
    expect(dots.content[0]!.text).toStartWith("VALIDATION_ERROR: id");
    const unexpectedKey = await callTool(agent, "get_balances", { idempotencyKey: "k-1" });
    expect(unexpectedKey.isError).toBe(true);
    expect(unexpectedKey.content[0]!.text).toContain("idempotencyKey");
  });

  test("the stdio transport validates the same way", async () => {
    const payer = await funded(10);
    const payee = await funded(0);
    const client = new Client({ name: "agentbank-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: "bun",
        args: ["run", join(ROOT, "src/main.ts"), "mcp", "--url", server.url, "--key", payer.apiKey],
        env: process.env as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const result = (await client.callTool({ name: "send_payment", arguments: { toAgentId: payee.id, amount: 5, currency: "USDC", idempotencyKey: 123 } })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toStartWith("VALIDATION_ERROR: idempotencyKey must be a string");
    } finally {
      await client.close();
    }
    expect(await server.balance(payer)).toEqual({ available: 10, held: 0 });
  });
});
