// The MCP server, driven by the official SDK client over both transports: Streamable HTTP at /mcp and
// stdio (`agentbank mcp`, against a running service by URL, and on a local database).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const MAIN = join(import.meta.dir, "../src/main.ts");

let server: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await server.close();
});

async function overHttp(agent: Agent, key = agent.apiKey): Promise<Client> {
  const client = new Client({ name: "agentbank-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

async function overStdio(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "agentbank-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: "bun", args: ["run", MAIN, "mcp", ...args], env: { ...(process.env as Record<string, string>), ...env }, stderr: "pipe" }));
  clients.push(client);
  return client;
}

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await call(client, name, args);
  expect({ name, error: result.isError ? result.content[0]?.text : null }).toEqual({ name, error: null });
  return result.structuredContent;
}

async function funded(amount: number): Promise<Agent> {
  const agent = await server.register();
  if (amount > 0) await server.deposit(agent.id, amount);
  return agent;
}

describe("Streamable HTTP at /mcp", () => {
  test("lists one tool per capability, each with a description for a model and the route's own schemas", async () => {
    const client = await overHttp(await funded(0));
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ["get_balances", "get_history", "send_payment", "send_message", "list_inbox", "start_negotiation", "counter_offer", "accept_offer", "offer_loan", "borrow", "repay_loan", "create_bet", "accept_bet", "propose_contract", "sign_contract", "fulfill_condition", "subscribe", "discover_services", "get_quote", "book_service", "set_webhook", "pay_x402_resource", "get_limits", "get_reputation", "withdraw"]) {
      expect(names).toContain(name);
    }
    const payment = tools.find((tool) => tool.name === "send_payment")!;
    expect(payment.description).toContain("idempotencyKey");
    expect(payment.inputSchema.required).toEqual(["toAgentId", "amount", "currency"]);
    expect(Object.keys(payment.inputSchema.properties!)).toEqual(["toAgentId", "amount", "currency", "reason", "metadata", "idempotencyKey"]);
    expect((payment.inputSchema.properties!.currency as { anyOf: { const: string }[] }).anyOf.map((option) => option.const)).toEqual(["USDC", "USDT", "USD", "EUR", "BTC"]);
    expect(tools.find((tool) => tool.name === "get_balances")!.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of tools) expect([tool.name, tool.description!.length > 30, tool.inputSchema.type]).toEqual([tool.name, true, "object"]);
  });

  test("pay, read balances and history, with a retried call applied once", async () => {
    const payer = await funded(20);
    const payee = await funded(0);
    const client = await overHttp(payer);
    const first = await ok(client, "send_payment", { toAgentId: payee.id, amount: 5, currency: "USDC", reason: "job", idempotencyKey: "mcp-pay-1" });
    // A model retrying regenerates the call, maybe in another order: same key, applied once.
    const again = await ok(client, "send_payment", { currency: "USDC", amount: 5, reason: "job", toAgentId: payee.id, idempotencyKey: "mcp-pay-1" });
    expect(again.id).toBe(first.id);
    expect(await server.balance(payer)).toEqual({ available: 15, held: 0 });
    const balances = await ok(client, "get_balances");
    expect(balances.balances[0]).toEqual({ currency: "USDC", available: 15, held: 0 });
    const history = await ok(client, "get_history", { limit: 1 });
    expect(history.data[0]).toMatchObject({ type: "PAYMENT_SENT", amount: -5 });
    expect((await ok(client, "get_limits")).tier).toBe("UNRATED");
    expect((await ok(client, "get_reputation", { id: payer.id })).score).toBe(1);
    const resource = await client.readResource({ uri: "agentbank://wallet/balances" });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).balances[0].available).toBe(15);
    await expectLedgerOk(server);
  });

  test("a restricted key lists and reads only the resources its scopes open; another is as unknown as a made-up one", async () => {
    const agent = await funded(3);
    const keyWith = async (scopes: string[]) => {
      const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: `mcp ${scopes.join(" ")}`, scopes } });
      expect(made.status).toBe(201);
      return made.body.apiKey as string;
    };
    /** The error reading `uri` is, with the URI itself left out of its message. */
    const readError = async (client: Client, uri: string) => {
      const error = await client.readResource({ uri }).then(() => null, (caught: { code?: number; message: string }) => caught);
      return error && { code: error.code, message: error.message.replace(uri, "<uri>") };
    };
    const everything = ["agentbank://messages/inbox", "agentbank://wallet/balances"];
    const agentKey = await overHttp(agent);
    expect((await agentKey.listResources()).resources.map((resource) => resource.uri).sort()).toEqual(everything);

    const reader = await overHttp(agent, await keyWith(["read"]));
    expect((await reader.listResources()).resources.map((resource) => resource.uri).sort()).toEqual(everything);
    const balances = await reader.readResource({ uri: "agentbank://wallet/balances" });
    expect(JSON.parse((balances.contents[0] as { text: string }).text).balances[0].available).toBe(3);

    const payer = await overHttp(agent, await keyWith(["pay"]));
    expect((await payer.listResources()).resources).toEqual([]);
    const unknown = await readError(payer, "agentbank://no/such/thing");
    expect(unknown).not.toBeNull();
    for (const uri of everything) expect({ uri, error: await readError(payer, uri) }).toEqual({ uri, error: unknown });
  });

  test("errors are tool errors with the code and a message the model can act on", async () => {
    const poor = await funded(1);
    const other = await funded(0);
    const client = await overHttp(poor);
    const short = await call(client, "send_payment", { toAgentId: other.id, amount: 5, currency: "USDC" });
    expect(short.isError).toBe(true);
    expect(short.content[0]!.text).toStartWith("INSUFFICIENT_BALANCE: not enough USDC available: 1 USDC available, 5 USDC needed");
    const bad = await call(client, "send_payment", { toAgentId: other.id, amount: 1, currency: "XRP" });
    expect(bad.content[0]!.text).toStartWith('VALIDATION_ERROR: currency must be one of USDC, USDT, USD, EUR, BTC (got "XRP")');
    const typo = await call(client, "send_payment", { to: other.id, amount: 1, currency: "USDC" });
    expect(typo.content[0]!.text).toStartWith("VALIDATION_ERROR: to is not an argument of send_payment; it takes toAgentId, amount, currency, reason, metadata, idempotencyKey");
    const chain = await call(client, "pay_x402_resource", { url: "https://example.com/", maxAmount: 1 });
    expect(chain.content[0]!.text).toStartWith("CHAIN_UNAVAILABLE:");
    expect(await server.balance(poor)).toEqual({ available: 1, held: 0 });
  });

  test("a wrong key (401), or an owner key (403), is refused before any tool runs", async () => {
    const agent = await funded(0);
    for (const [key, status, error] of [["pp_wrong", 401, "UNAUTHORIZED"], [agent.ownerKey, 403, "FORBIDDEN"]] as const) {
      const reply = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(reply.status).toBe(status);
      expect(((await reply.json()) as { error: string }).error).toBe(error);
    }
    await expect(overHttp(agent, "pp_wrong")).rejects.toThrow();
  });

  test("every family through tools: messages, negotiation turns, lending, betting, contracts, subscriptions, marketplace, webhooks", async () => {
    const a = await funded(500);
    const b = await funded(500);
    const [ma, mb] = [await overHttp(a), await overHttp(b)];
    await ok(ma, "send_message", { recipientId: b.id, subject: "hello", body: "shall we trade?" });
    const inbox = await ok(mb, "list_inbox", { unreadOnly: true, type: "direct" });
    expect(inbox.data[0]).toMatchObject({ subject: "hello", senderId: a.id });
    await ok(mb, "mark_message_read", { messageId: inbox.data[0].id });

    const negotiation = await ok(ma, "start_negotiation", { counterpartyId: b.id, subject: "dataset", offer: { amount: 100, currency: "USDC" } });
    await ok(mb, "counter_offer", { id: negotiation.id, offer: { amount: 80, currency: "USDC" } });
    expect((await ok(ma, "accept_offer", { id: negotiation.id })).status).toBe("ACCEPTED");

    // b is UNRATED: what it will owe (principal + interest) must be within 100 USD.
    const offer = await ok(ma, "offer_loan", { amount: 80, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50 });
    const loan = await ok(mb, "borrow", { offerId: offer.id });
    expect((await ok(mb, "repay_loan", { loanId: loan.id, amount: 84 })).status).toBe("REPAID");

    const bet = await ok(ma, "create_bet", { description: "match", condition: "A wins", amount: 10, currency: "USDC" });
    expect((await ok(mb, "accept_bet", { betId: bet.id })).status).toBe("MATCHED");

    const contract = await ok(ma, "propose_contract", { counterpartyId: b.id, title: "t", description: "d", escrowAmount: 20, currency: "USDC", conditions: [{ id: "c1", type: "delivery", description: "deliver", params: {} }] });
    await ok(mb, "sign_contract", { id: contract.id });
    expect((await ok(ma, "fulfill_condition", { id: contract.id, conditionId: "c1" })).status).toBe("FULFILLED");

    const subscription = await ok(ma, "subscribe", { recipientId: b.id, amount: 1, currency: "USDC", frequency: "DAILY" });
    expect((await ok(mb, "cancel_subscription", { id: subscription.id })).status).toBe("CANCELLED");

    const service = await ok(mb, "list_service", { name: "Room", description: "quiet", category: "lodging", price: 30, currency: "USDC", pricingUnit: "PER_NIGHT" });
    const found = await ok(ma, "discover_services", { category: "lodging" });
    expect(found.data.map((s: { id: string }) => s.id)).toContain(service.id);
    const quote = await ok(ma, "get_quote", { serviceId: service.id, nights: 2 });
    expect(quote.amount).toBe(60);
    expect((await ok(ma, "book_service", { quoteId: quote.id, idempotencyKey: "book-1" })).status).toBe("CONFIRMED");

    const hook = await call(ma, "set_webhook", { webhookUrl: "http://127.0.0.1:9/hook" });
    expect(hook.content[0]!.text).toStartWith("VALIDATION_ERROR: webhookUrl:");
    expect((await ok(ma, "set_webhook", { webhookUrl: null })).webhookUrl).toBeNull();
    await expectLedgerOk(server);
  });
});

test("/llms.txt describes the service and every tool the MCP server lists", async () => {
  const response = await fetch(`${server.url}/llms.txt`);
  expect(response.headers.get("content-type")).toStartWith("text/plain");
  const text = await response.text();
  expect(text).toStartWith("# agentbank\n\n> A bank for autonomous software agents");
  const { tools } = await (await overHttp(await funded(0))).listTools();
  for (const tool of tools) expect(text).toContain(`- ${tool.name} (`);
});

describe("stdio: agentbank mcp", () => {
  test("against a running agentbank by URL: tools, a replayed retry, and a wrong key refused at start", async () => {
    const payer = await funded(10);
    const payee = await funded(0);
    const client = await overStdio(["--url", server.url, "--key", payer.apiKey]);
    expect((await client.listTools()).tools.length).toBeGreaterThan(40);
    const first = await ok(client, "send_payment", { toAgentId: payee.id, amount: 2, currency: "USDC", idempotencyKey: "stdio-1" });
    const again = await ok(client, "send_payment", { toAgentId: payee.id, amount: 2, currency: "USDC", idempotencyKey: "stdio-1" });
    expect(again.id).toBe(first.id);
    expect(await server.balance(payer)).toEqual({ available: 8, held: 0 });
    await expect(overStdio(["--url", server.url, "--key", "pp_wrong"])).rejects.toThrow();
    await expectLedgerOk(server);
  });

  test("on the local database, with no service running on it", async () => {
    const local = await startServer({ postgres: undefined });
    const agent = await local.register();
    await local.deposit(agent.id, 3);
    await local.stop();
    try {
      const client = await overStdio(["--key", agent.apiKey], { DATABASE_PATH: local.databasePath, ADMIN_API_KEY: "x" });
      const balances = await ok(client, "get_balances");
      expect(balances.balances[0]).toEqual({ currency: "USDC", available: 3, held: 0 });
      await client.close();
    } finally {
      await local.close();
    }
  });
});
