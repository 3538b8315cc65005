// The edges a developer trips over first (issue 23): the other agent's field under another route's
// name, the history that forgot why money moved, a key of the wrong kind, and MCP tool listings that
// clients other than the SDK's must read as they are.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expectLedgerOk } from "./helpers/ledger";
import { operations, type Spec } from "./helpers/operations";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let payer: Agent;
let payee: Agent;
let mcp: Client;
beforeAll(async () => {
  server = await startServer();
  payer = await server.register();
  payee = await server.register();
  await server.deposit(payer.id, 100);
  mcp = new Client({ name: "api-edges-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${payer.apiKey}` } } }));
});
afterAll(async () => {
  await mcp.close().catch(() => {});
  await server.close();
});

describe("the other agent's field under another route's name", () => {
  const cases = [
    { path: "/payments/send", sent: "recipientId", takes: "toAgentId", rest: { amount: 5, currency: "USDC" } },
    { path: "/messages", sent: "toAgentId", takes: "recipientId", rest: { subject: "hello", body: "hi" } },
    { path: "/subscriptions", sent: "toAgentId", takes: "recipientId", rest: { amount: 5, currency: "USDC", frequency: "DAILY" } },
    { path: "/negotiations", sent: "recipientId", takes: "counterpartyId", rest: { subject: "deal", offer: { amount: 5 } } },
  ];
  for (const { path, sent, takes, rest } of cases) {
    test(`POST ${path} with ${sent} is 400 naming ${takes}, and changes nothing`, async () => {
      const before = await server.balance(payer);
      const reply = await server.request("POST", path, { key: payer.apiKey, body: { [sent]: payee.id, ...rest } });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe("VALIDATION_ERROR");
      expect(reply.body.message).toStartWith(`unknown field ${sent}; this route takes ${takes}`);
      expect(reply.body.details[0]).toEqual({ field: sent, message: `unknown field ${sent}; this route takes ${takes}` });
      // Sent beside the right name, the wrong one is still refused: nothing is dropped silently.
      const both = await server.request("POST", path, { key: payer.apiKey, body: { [takes]: payee.id, [sent]: payee.id, ...rest } });
      expect([both.status, both.body.message]).toEqual([400, `unknown field ${sent}; this route takes ${takes}`]);
      expect(await server.balance(payer)).toEqual(before);
    });
  }

  test("an MCP tool call under another route's name is a tool error naming the argument the tool takes", async () => {
    const result = (await mcp.callTool({ name: "send_payment", arguments: { recipientId: payee.id, amount: 5, currency: "USDC" } })) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe("VALIDATION_ERROR: unknown argument recipientId; send_payment takes toAgentId");
    await expectLedgerOk(server);
  });
});

describe("history", () => {
  test("each payment entry carries the payment's reason, on both sides; other movements have none", async () => {
    const paid = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 2, currency: "USDC", reason: "invoice 7" } });
    expect(paid.status).toBe(201);
    const plain = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC" } });
    expect(plain.status).toBe(201);
    const sent = (await server.request("GET", "/wallets/history", { key: payer.apiKey })).body.data;
    expect(sent.map((entry: { type: string; reason: string | null }) => [entry.type, entry.reason])).toEqual([
      ["PAYMENT_SENT", null],
      ["PAYMENT_SENT", "invoice 7"],
      ["DEPOSIT", null],
    ]);
    const received = (await server.request("GET", "/wallets/history", { key: payee.apiKey })).body.data;
    expect(received.find((entry: { reference: { id: string } }) => entry.reference.id === paid.body.id)).toMatchObject({ type: "PAYMENT_RECEIVED", reason: "invoice 7" });
    await expectLedgerOk(server);
  });
});

describe("a key of the wrong kind", () => {
  test("on every agent route an owner key is 403 naming the agent key, and on every owner route an agent key is 403 naming the owner key", async () => {
    const spec: Spec = (await server.request("GET", "/swagger/json")).body;
    // A route that takes either key (POST /agents/me/keys) refuses neither.
    const routes = operations(spec).filter((op) => (op.scheme === "agentKey" || op.scheme === "ownerKey") && op.schemes.length === 1);
    expect(routes.filter((op) => op.scheme === "ownerKey").length).toBeGreaterThan(3);
    const refusals = [];
    for (const op of routes) {
      const [key, takes] = op.scheme === "agentKey" ? [payer.ownerKey, "the agent's API key (pp_…)"] : [payer.apiKey, "the owner key (po_…)"];
      const reply = await server.request(op.method, op.path, { key, body: op.method === "GET" || op.method === "DELETE" ? undefined : {} });
      refusals.push({ route: `${op.method} ${op.template}`, status: reply.status, error: reply.body?.error, namesTheKey: String(reply.body?.message).endsWith(`this route takes ${takes}`) });
    }
    expect(refusals.filter((refusal) => refusal.status !== 403 || refusal.error !== "FORBIDDEN" || !refusal.namesTheKey)).toEqual([]);
  });

  test("a missing, malformed or unknown key stays 401, whichever kind the route takes", async () => {
    for (const path of ["/agents/me", "/owner/policy"]) {
      for (const key of [undefined, "not-a-key", "pp_unknown", "po_unknown"]) {
        const reply = await server.request("GET", path, { key });
        expect({ path, key, status: reply.status, error: reply.body.error }).toEqual({ path, key, status: 401, error: "UNAUTHORIZED" });
      }
    }
  });
});

type Schema = { type?: unknown; anyOf?: Schema[]; properties?: Record<string, Schema>; items?: Schema; additionalProperties?: unknown };

/** Where a schema holds a `type` array or a property without a type (an anyOf of typed options counts as typed). */
function portabilityProblems(schema: Schema | undefined, at: string): string[] {
  if (!schema || typeof schema !== "object") return [];
  const problems: string[] = [];
  if (Array.isArray(schema.type)) problems.push(`${at}: type is an array`);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const typed = typeof property.type === "string" || (property.anyOf?.length && property.anyOf.every((option) => typeof option.type === "string"));
    if (!typed) problems.push(`${at}.${name}: no type`);
    problems.push(...portabilityProblems(property, `${at}.${name}`));
  }
  for (const [index, option] of (schema.anyOf ?? []).entries()) problems.push(...portabilityProblems(option, `${at}|${index}`));
  problems.push(...portabilityProblems(schema.items, `${at}[]`));
  if (typeof schema.additionalProperties === "object") problems.push(...portabilityProblems(schema.additionalProperties as Schema, `${at}{}`));
  return problems;
}

describe("MCP tool listings", () => {
  test("every tool says when to use it, carries all four annotations and has schemas every client reads", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.length).toBeGreaterThan(40);
    const problems = tools.flatMap((tool) => [
      ...((tool.description ?? "").length < 40 ? [`${tool.name}: description under 40 characters`] : []),
      ...["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
        .filter((hint) => typeof (tool.annotations as Record<string, unknown> | undefined)?.[hint] !== "boolean")
        .map((hint) => `${tool.name}: no ${hint}`),
      ...portabilityProblems(tool.inputSchema as Schema, `${tool.name} input`),
      ...portabilityProblems(tool.outputSchema as Schema | undefined, `${tool.name} output`),
    ]);
    expect(problems).toEqual([]);
  });

  test("the annotations follow what each tool does", async () => {
    const { tools } = await mcp.listTools();
    const hints = (name: string) => tools.find((tool) => tool.name === name)!.annotations;
    expect(hints("get_balances")).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    // Money leaves for good, and the same call without an idempotencyKey pays again.
    expect(hints("send_payment")).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(hints("pay_x402_resource")).toMatchObject({ destructiveHint: true, openWorldHint: true, idempotentHint: false });
    expect(hints("resend_webhook_delivery")).toMatchObject({ openWorldHint: true });
    expect(hints("send_message")).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(hints("mark_message_read")).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(hints("unblock_agent")).toMatchObject({ destructiveHint: true, idempotentHint: true });
  });
});
