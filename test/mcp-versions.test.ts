// /mcp for the clients of every protocol revision it serves (docs/mcp.md): the v1 SDK client
// (2025-era initialize), the v2 client pinned to 2026-07-28 and the v2 client in `auto` mode each list
// the tools and pay once; and the optional features: prompts, completions, logging and progress, with
// a restricted key offered nothing its scopes do not open.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
/** A resource outside the bank that answers at once: what pay_x402_resource waits on. */
let resource: ReturnType<typeof Bun.serve>;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  resource = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ weather: "sunny" }) });
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await server.close();
  resource.stop(true);
});

const headers = (key: string) => ({ requestInit: { headers: { authorization: `Bearer ${key}` } } });
const url = () => new URL(`${server.url}/mcp`);

/** The three clients a host may be built on. */
const CLIENTS = {
  "v1 SDK client (2025 initialize)": async (key: string) => {
    const client = new ClientV1({ name: "agentbank-test-v1", version: "1.0.0" });
    const transport = new TransportV1(url(), headers(key));
    await client.connect(transport);
    return { client, version: transport.protocolVersion };
  },
  "v2 client pinned to 2026-07-28": async (key: string) => {
    const client = new Client({ name: "agentbank-test-pinned", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(url(), headers(key)));
    return { client, version: client.getNegotiatedProtocolVersion() };
  },
  "v2 client in auto mode": async (key: string) => {
    const client = new Client({ name: "agentbank-test-auto", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(url(), headers(key)));
    return { client, version: client.getNegotiatedProtocolVersion() };
  },
};
/** What each client must end up speaking: `auto` finds 2026-07-28 (no fallback to initialize). */
const SPOKEN: Record<keyof typeof CLIENTS, string> = {
  "v1 SDK client (2025 initialize)": "2025-11-25",
  "v2 client pinned to 2026-07-28": "2026-07-28",
  "v2 client in auto mode": "2026-07-28",
};

type AnyClient = Awaited<ReturnType<(typeof CLIENTS)[keyof typeof CLIENTS]>>["client"];
type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
/** A tool call; the v1 client takes a result schema before the request options. */
async function callTool(client: AnyClient, name: string, args: Record<string, unknown>, options: object = {}): Promise<ToolResult> {
  const result = client instanceof ClientV1 ? await client.callTool({ name, arguments: args }, undefined, options) : await client.callTool({ name, arguments: args }, options);
  return result as ToolResult;
}

async function connect(kind: keyof typeof CLIENTS, key: string): Promise<AnyClient> {
  const { client, version } = await CLIENTS[kind](key);
  clients.push(client);
  expect({ kind, version }).toEqual({ kind, version: SPOKEN[kind] });
  return client;
}

async function funded(amount: number): Promise<Agent> {
  const agent = await server.register();
  if (amount > 0) await server.deposit(agent.id, amount);
  return agent;
}

async function keyWith(agent: Agent, scopes: string[]): Promise<string> {
  const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: `mcp ${scopes.join(" ")}`, scopes } });
  expect(made.status).toBe(201);
  return made.body.apiKey;
}

describe("each client lists the tools and pays once", () => {
  for (const kind of Object.keys(CLIENTS) as (keyof typeof CLIENTS)[]) {
    test(kind, async () => {
      const payer = await funded(10);
      const payee = await funded(0);
      const client = await connect(kind, payer.apiKey);
      const { tools } = await (client as Client).listTools();
      expect(tools.map((tool) => tool.name)).toContain("send_payment");
      const paid = await callTool(client, "send_payment", { toAgentId: payee.id, amount: 4, currency: "USDC", idempotencyKey: `once-${kind.replaceAll(" ", "-")}` });
      expect(paid.isError ? paid.content[0]!.text : null).toBeNull();
      const again = await callTool(client, "send_payment", { toAgentId: payee.id, amount: 4, currency: "USDC", idempotencyKey: `once-${kind.replaceAll(" ", "-")}` });
      expect(again.structuredContent.id).toBe(paid.structuredContent.id);
      expect(await server.balance(payer)).toEqual({ available: 6, held: 0 });
      expect(await server.balance(payee)).toEqual({ available: 4, held: 0 });
      await expectLedgerOk(server);
    });
  }
});

test("a 2025-06-18 client's initialize is answered at 2025-06-18, and its requests after it", async () => {
  const agent = await funded(0);
  const post = async (message: object) => {
    const response = await fetch(url(), {
      method: "POST",
      headers: { authorization: `Bearer ${agent.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
    });
    return (await response.json()) as { result: any };
  };
  const initialized = await post({ method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agentbank-test-2025-06", version: "1.0.0" } } });
  expect(initialized.result.protocolVersion).toBe("2025-06-18");
  expect((await post({ method: "tools/list" })).result.tools.length).toBeGreaterThan(40);
});

describe("prompts and completions show only what the key may read", () => {
  test("the agent's key: the three prompts, pay_invoice with its arguments, currencies and the agents it dealt with (only those)", async () => {
    const agent = await funded(10);
    const paid = await funded(0);
    const stranger = await funded(0);
    expect((await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: paid.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    for (const kind of ["v1 SDK client (2025 initialize)", "v2 client pinned to 2026-07-28"] as const) {
      const client = (await connect(kind, agent.apiKey)) as Client;
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(["explain_refusal", "pay_invoice", "review_approvals"]);
      const prompt = await client.getPrompt({ name: "pay_invoice", arguments: { toAgentId: paid.id, amount: "2.5", currency: "USDC", reference: "INV-7" } });
      const text = (prompt.messages[0]!.content as { text: string }).text;
      expect(text).toContain(`Pay 2.5 USDC to the agent ${paid.id} for the invoice "INV-7"`);
      expect(text).toContain("idempotencyKey");
      const complete = async (name: string, value: string) =>
        (await client.complete({ ref: { type: "ref/prompt", name: "pay_invoice" }, argument: { name, value } })).completion.values;
      expect(await complete("currency", "us")).toEqual(["USDC", "USDT", "USD"]);
      expect(await complete("toAgentId", "")).toEqual([paid.id]);
      expect(await complete("toAgentId", stranger.id.slice(0, 6))).not.toContain(stranger.id);
      expect((await client.complete({ ref: { type: "ref/prompt", name: "explain_refusal" }, argument: { name: "code", value: "TIER" } })).completion.values).toEqual(["TIER_LIMIT_EXCEEDED"]);
      const missing = await client.getPrompt({ name: "pay_invoice", arguments: { toAgentId: paid.id } }).then(() => null, (error: { code: number }) => error.code);
      expect(missing).toBe(-32602);
    }
  });

  test("a restricted key is offered only the prompts whose tools its scopes open, and completes nothing of a prompt it is not offered", async () => {
    const agent = await funded(5);
    const other = await funded(0);
    expect((await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: other.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    const messenger = (await connect("v2 client pinned to 2026-07-28", await keyWith(agent, ["message"]))) as Client;
    expect((await messenger.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["explain_refusal"]);
    for (const name of ["pay_invoice", "review_approvals"]) {
      const refused = await messenger.getPrompt({ name, arguments: { toAgentId: other.id, amount: "1", currency: "USDC" } }).then(() => null, (error: { code: number }) => error.code);
      expect({ name, refused }).toEqual({ name, refused: -32602 });
    }
    const agents = await messenger.complete({ ref: { type: "ref/prompt", name: "pay_invoice" }, argument: { name: "toAgentId", value: "" } }).then(
      (result) => result.completion.values,
      (error: { code: number }) => error.code,
    );
    expect(agents).toBe(-32602);
    const reader = (await connect("v1 SDK client (2025 initialize)", await keyWith(agent, ["read"]))) as unknown as Client;
    expect((await reader.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(["explain_refusal", "review_approvals"]);
  });
});

describe("logging and progress", () => {
  test("logging/setLevel is answered for a 2025 client", async () => {
    const client = (await connect("v1 SDK client (2025 initialize)", (await funded(0)).apiKey)) as unknown as Client;
    expect(await client.setLoggingLevel("warning")).toEqual({});
  });

  for (const kind of ["v1 SDK client (2025 initialize)", "v2 client pinned to 2026-07-28"] as const) {
    test(`a tool that waits reports its progress (${kind})`, async () => {
      const agent = await funded(3);
      const client = await connect(kind, agent.apiKey);
      const progress: { progress: number; total?: number; message?: string }[] = [];
      const result = await callTool(client, "pay_x402_resource", { url: `http://127.0.0.1:${resource.port}/free`, maxAmount: 1 }, { onprogress: (step: (typeof progress)[number]) => progress.push(step) });
      // No chain in this file: the call waits, then is refused before it pays; the progress is the transport's either way.
      expect(result.content[0]!.text).toStartWith("CHAIN_UNAVAILABLE");
      expect(progress.map((step) => [step.progress, step.total])).toEqual([[0, 1], [1, 1]]);
      expect(progress[0]!.message).toContain("pay_x402_resource");
      expect(await server.balance(agent)).toEqual({ available: 3, held: 0 });
      await expectLedgerOk(server);
    });
  }
});
