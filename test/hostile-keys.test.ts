// Keys an outsider chose never reach a prototype (issue 22). Generated, not hand-picked: every operation
// of the OpenAPI document, every form the console serves and every MCP tool is sent bodies, query strings,
// form fields and arguments keyed __proto__, constructor, prototype and dotted paths through them (as
// JSON text, so "__proto__" is a literal key; at the top level, beside valid fields, and nested in every
// object a valid body has). A polluted Object.prototype cannot be seen from here (the service is another
// process), so the test looks at what pollution would break: another owner's agent must still be held
// above its approval amount, its held outflow still PENDING, a small payment still made, the ledger ok,
// and nothing may have answered 500.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { claimByMail, consoleLinksOf, signInByMail, formsOf, getPage, isSignIn, operatorSignIn, postForm, signIn, type ConsolePage } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

setDefaultTimeout(240_000);

/** What pollution would set: a standing acceptance (no approval needed) or a grant (every outflow looks approved). */
const POLLUTION = { standing: true, grant: "1" };
/** Each hostile key with the value that would pollute through it. */
const HOSTILE: [string, unknown][] = [
  ["__proto__", POLLUTION],
  ["constructor", { prototype: POLLUTION }],
  ["prototype", POLLUTION],
  ["__proto__.standing", true],
  ["__proto__.grant", "1"],
  ["constructor.prototype.standing", true],
];
const HOSTILE_QUERY_NAMES = [...HOSTILE.map(([name]) => name), "__proto__[standing]", "constructor[prototype][standing]"];
/** An object holding one hostile key as its own property (Object.fromEntries defines it; JSON.stringify writes it). */
const withKey = (base: Record<string, unknown>, [name, value]: [string, unknown]) => Object.fromEntries([...Object.entries(base), [name, value]]);

let server: TestServer;
let attacker: Agent;
let victim: Agent;
let payee: Agent;
let heldOfVictim: string;
/** The attacker's keys as they are now: a route or form may rotate them, and the test follows; the operator routes are walked with a named operator key (pa_…). */
const keys = { agent: "", owner: "", operator: "" };
/** Every answer that was a 500 (or an MCP call that failed with one). */
const problems: string[] = [];
/** The attacker's webhook receiver fails every delivery, so its console shows "send again" forms too. */
const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(null, { status: 500 }) });

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  [attacker, victim, payee] = [await server.register(), await server.register(), await server.register()];
  keys.agent = attacker.apiKey;
  keys.owner = attacker.ownerKey;
  keys.operator = (await server.admin("POST", "/admin/operators", { name: "hostile-walker" })).body.apiKey;
  await server.deposit(attacker.id, 10_000);
  await server.deposit(victim.id, 1_000);
  // The victim's owner: ask me above 10 USDC; one outflow of 20 waits for it.
  expect((await server.request("PUT", "/owner/policy", { key: victim.ownerKey, body: { approvalAbove: { USDC: 10 } } })).status).toBe(200);
  const held = await server.request("POST", "/payments/send", { key: victim.apiKey, body: { toAgentId: payee.id, amount: 20, currency: "USDC" } });
  expect(held.status).toBe(202);
  heldOfVictim = held.body.approvalId;
  // The attacker holds one outflow too, so its console shows the approval forms.
  expect((await server.request("PUT", "/owner/policy", { key: keys.owner, body: { approvalAbove: { USDC: 50 } } })).status).toBe(200);
  expect((await server.request("POST", "/payments/send", { key: keys.agent, body: { toAgentId: payee.id, amount: 60, currency: "USDC" } })).status).toBe(202);
  // What the console's Activity page can stop: a subscription, an open loan offer, an open bet.
  for (const [path, body] of [
    ["/subscriptions", { recipientId: payee.id, amount: 1, currency: "USDC", frequency: "DAILY" }],
    ["/lending/offers", { amount: 5, currency: "USDC", interestRate: 1, durationDays: 5, collateralPercent: 0 }],
    ["/betting", { description: "d", condition: "c", amount: 1, currency: "USDC" }],
  ] as const) expect((await server.request("POST", path, { key: keys.agent, body })).status).toBe(201);
  const webhookUrl = `http://127.0.0.1:${receiver.port}/hook`;
  expect((await server.request("PUT", "/agents/me/webhook", { key: keys.agent, body: { webhookUrl } })).status).toBe(200);
  await server.deposit(payee.id, 10);
  expect((await server.request("POST", "/payments/send", { key: payee.apiKey, body: { toAgentId: attacker.id, amount: 1, currency: "USDC" } })).status).toBe(201);
  const failed = async () => (await server.request("GET", "/agents/me/webhook/deliveries", { key: keys.agent })).body.data.some((delivery: { outcome: string }) => delivery.outcome !== "DELIVERED");
  for (let tries = 0; tries < 100 && !(await failed()); tries++) await Bun.sleep(50);
}, 60_000);
afterAll(async () => {
  await server.close();
  receiver.stop(true);
});

/** A key in an answer replaces the one the test holds (a rotation answered it). */
function follow(body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
  const apiKey = /"apiKey":"(pp_[^"]+)"|id="new-api-key">(pp_[^<]+)</.exec(text);
  const ownerKey = /"ownerKey":"(po_[^"]+)"|id="new-owner-key">(po_[^<]+)</.exec(text);
  if (apiKey) keys.agent = apiKey[1] ?? apiKey[2]!;
  if (ownerKey) keys.owner = ownerKey[1] ?? ownerKey[2]!;
}

function record(what: string, status: number, body: unknown): void {
  follow(body);
  const text = typeof body === "string" ? body.slice(0, 200) : JSON.stringify(body)?.slice(0, 200);
  if (status === 500 || /INTERNAL_ERROR/.test(text ?? "")) problems.push(`${what}: ${status} ${text}`);
}

type Schema = {
  type?: string;
  format?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  examples?: unknown[];
};

/**
 * A value the schema accepts, as far as a schema says (ids point at the payee). `hostile`: every object
 * below the top level (metadata, offers, limits per currency, condition params…) also holds that key,
 * and optional object-valued fields are filled so that there is somewhere to put it.
 */
function sample(schema: Schema, hostile?: [string, unknown], depth = 0): unknown {
  if (schema.examples?.length && !hostile) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) return sample(schema.anyOf.find((option) => option.type !== "null") ?? schema.anyOf[0]!, hostile, depth);
  switch (schema.type) {
    case "object": {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const objectValued = property.type === "object" || (property.type === "array" && property.items?.type === "object");
        if (schema.required?.includes(name) || (hostile && objectValued)) value[name] = sample(property, hostile, depth + 1);
      }
      return hostile && depth > 0 ? withKey(value, hostile) : value;
    }
    case "array":
      return schema.minItems || (hostile && schema.items?.type === "object") ? [sample(schema.items ?? {}, hostile, depth + 1)] : [];
    case "number":
    case "integer": {
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      return Math.min(Math.max(low, 1), schema.maximum ?? Infinity);
    }
    case "boolean":
      return false;
    case "string":
      switch (schema.format) {
        case "uuid":
          return payee.id;
        case "email":
          return "owner@example.com";
        case "uri":
          return "http://127.0.0.1:9/hostile";
        case "date-time":
          return new Date().toISOString();
        default:
          return "x".repeat(Math.max(1, schema.minLength ?? 1));
      }
    default:
      return {};
  }
}

const hasObjectInside = (schema: Schema): boolean =>
  Object.values(schema.properties ?? {}).some((property) => property.type === "object" || (property.type === "array" && property.items?.type === "object") || hasObjectInside(property));

type Operation = { method: string; path: string; security: string[]; pathParams: { name: string; schema: Schema }[]; body: Schema | null };

function keyFor(operation: Operation): string | undefined {
  if (operation.security.includes("adminKey")) return keys.operator;
  if (operation.security.includes("ownerKey")) return keys.owner;
  if (operation.security.includes("agentKey")) return keys.agent;
  return undefined;
}

/** The bodies of one operation: each hostile key alone, beside a valid body's fields, and nested in its objects. */
function bodiesFor(body: Schema | null): [string, string][] {
  const valid = (body ? sample(body) : {}) as Record<string, unknown>;
  return HOSTILE.flatMap((entry): [string, string][] => [
    [`body {${entry[0]}}`, JSON.stringify(withKey({}, entry))],
    [`valid body + ${entry[0]}`, JSON.stringify(withKey(valid, entry))],
    ...(body && hasObjectInside(body) ? [[`valid body, ${entry[0]} nested`, JSON.stringify(sample(body, entry))] as [string, string]] : []),
  ]);
}

describe("every operation of the OpenAPI document", () => {
  test("refuses hostile keys in bodies and query strings without a 500", async () => {
    problems.length = 0;
    const document = (await server.request("GET", "/swagger/json")).body;
    const operations: Operation[] = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        security: (operation.security ?? []).flatMap((scheme: Record<string, unknown>) => Object.keys(scheme)),
        pathParams: (operation.parameters ?? []).filter((parameter: any) => parameter.in === "path"),
        body: operation.requestBody?.content?.["application/json"]?.schema ?? null,
      })),
    );
    expect(operations.length).toBeGreaterThan(80);
    let sent = 0;
    for (const operation of operations) {
      const path = operation.pathParams.reduce((built, { name, schema }) => built.replace(`{${name}}`, schema.format === "uuid" ? crypto.randomUUID() : "x"), operation.path);
      for (const name of HOSTILE_QUERY_NAMES) {
        const reply = await server.request(operation.method, `${path}?${new URLSearchParams([[name, "1"]])}`, { key: keyFor(operation) });
        record(`${operation.method} ${operation.path} ?${name}`, reply.status, reply.body);
        sent++;
      }
      if (operation.method === "GET") continue;
      for (const [variant, text] of bodiesFor(operation.body)) {
        const reply = await server.request(operation.method, path, { key: keyFor(operation), raw: text, headers: { "content-type": "application/json" } });
        record(`${operation.method} ${operation.path} ${variant}`, reply.status, reply.body);
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
  });
});

/**
 * Crawls the console (`under`: /console, or /operator) from `start` signed in (through `signedInPage`, which signs in again when a form
 * ended the session), then posts every form it found once per hostile field name. Records 500s in
 * `problems`; answers the forms found and the posts that were not refused with the form's 400.
 */
async function walkConsoleForms(on: TestServer, start: string[], signedInPage: (path: string) => Promise<ConsolePage>, cookie: () => string, under = "/console") {
  /** Form posts that were not refused with the form's 400 page. */
  const notRefused: string[] = [];
  // Discover the forms: every console page reachable from the start, signed in.
  const formPages = new Map<string, string>();
  const queue = [...start];
  const seen = new Set(queue);
  while (queue.length > 0 && seen.size < 80) {
    const path = queue.shift()!;
    const page = await signedInPage(path);
    record(`GET ${path}`, page.status, page.html);
    for (const form of formsOf(page.html)) if (!formPages.has(form.action)) formPages.set(form.action, path);
    for (const link of consoleLinksOf(page.html, under)) if (!seen.has(link)) seen.add(link), queue.push(link);
  }
  for (const [action, pagePath] of formPages) {
    for (const [name] of HOSTILE) {
      const form = formsOf((await signedInPage(pagePath)).html).find((candidate) => candidate.action === action);
      if (!form) continue; // an earlier post decided it (before the fix, an approval went through)
      const answer = await postForm(on, action, [...form.fields, [name, "1"]], cookie());
      record(`POST ${action} field ${name}`, answer.status, answer.html);
      if (answer.status !== 400) notRefused.push(`POST ${action} field ${name}: ${answer.status}`);
    }
  }
  return { actions: [...formPages.keys()], notRefused };
}

describe("every form of the owner console", () => {
  let cookie = "";
  /** The page, signed in (again, if a form ended the session). */
  async function signedInPage(path: string): Promise<ConsolePage> {
    if (!cookie) cookie = await signIn(server, keys.owner);
    let page = await getPage(server, path, cookie);
    if (isSignIn(page)) {
      cookie = await signIn(server, keys.owner);
      page = await getPage(server, path, cookie);
    }
    return page;
  }

  test("refuses hostile field names with its error page, never a 500", async () => {
    problems.length = 0;
    // The unfreeze page is linked only while the agent is frozen (the banner's); the header links the freeze page.
    const { actions, notRefused } = await walkConsoleForms(server, ["/console", "/console/unfreeze"], signedInPage, () => cookie);

    // The sign-in forms (an owner key, an e-mail address), before any session.
    for (const action of ["/console/login", "/console/login/email"]) {
      for (const [name] of HOSTILE) {
        const page = await getPage(server, "/console");
        const form = formsOf(page.html).find((candidate) => candidate.action === action)!;
        const fields = form.fields.map(([field, value]): [string, string] => [field, field === "ownerKey" ? keys.owner : field === "email" ? "owner@example.com" : value]);
        const answer = await postForm(server, action, [...fields, [name, "1"]], page.headers.get("set-cookie")!.split(";")[0]!);
        record(`POST ${action} field ${name}`, answer.status, answer.html);
        if (answer.status !== 400) notRefused.push(`POST ${action} field ${name}: ${answer.status}`);
      }
    }
    expect(problems).toEqual([]);
    expect(notRefused).toEqual([]);
    // Every kind of form was found (a crawl that found none would prove nothing).
    const expected = ["/console/logout", "/console/policy", "/console/rotate", "/console/security/keys", "/console/security/owner-key", "/console/webhooks/rotate", "/console/freeze", "/console/unfreeze"];
    for (const action of expected) expect(actions).toContain(action);
    const patterns = [/^\/console\/approvals\/[^/]+\/approve$/, /^\/console\/approvals\/[^/]+\/decline$/, /^\/console\/webhooks\/[^/]+\/resend$/, /^\/console\/activity\/subscription\/[^/]+$/, /^\/console\/activity\/offer\/[^/]+$/, /^\/console\/activity\/bet\/[^/]+$/];
    for (const pattern of patterns) {
      expect(actions.some((action) => pattern.test(action))).toBe(true);
    }
  });

  test("signed in as an owner account (claimed by a mailed link), the Notifications page's forms too", async () => {
    problems.length = 0;
    const accounts = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
    try {
      const email = "hostile-owner@example.com";
      expect((await accounts.request("POST", "/agents/register", { body: { name: "owned", ownerName: "Ada", ownerEmail: email } })).status).toBe(201);
      let owned = await claimByMail(accounts, email);
      // A webhook, so that the page shows every form (test, rotate, remove) and a notice it could not send.
      const page = await getPage(accounts, "/console/notifications", owned);
      const webhookForm = formsOf(page.html).find((form) => form.action === "/console/notifications/webhook")!;
      const fields = [...webhookForm.fields.filter(([name]) => name !== "url"), ["url", `http://127.0.0.1:${receiver.port}/owner-hook`] as [string, string]];
      expect((await postForm(accounts, webhookForm.action, fields, owned)).status).toBe(200);
      const signedInPage = async (path: string) => {
        const shown = await getPage(accounts, path, owned);
        if (!isSignIn(shown)) return shown;
        owned = await signInByMail(accounts, email);
        return getPage(accounts, path, owned);
      };
      const { actions, notRefused } = await walkConsoleForms(accounts, ["/console/notifications"], signedInPage, () => owned);
      expect(problems).toEqual([]);
      expect(notRefused).toEqual([]);
      for (const action of ["/console/notifications/webhook", "/console/notifications/webhook/remove", "/console/notifications/rotate", "/console/notifications/test", "/console/notifications/channels"]) {
        expect(actions).toContain(action);
      }
      // Refused before anything was done: the webhook is still there.
      expect((await getPage(accounts, "/console/notifications", owned)).html).toContain('action="/console/notifications/test"');
    } finally {
      await accounts.close();
    }
  });
});

describe("every form of the operator console", () => {
  test("refuses hostile field names with its error page, never a 500, and nothing is recorded", async () => {
    problems.length = 0;
    const { cookie } = await operatorSignIn(server, keys.operator);
    const signedInPage = (path: string) => getPage(server, path, cookie);
    const before = (await server.admin("GET", "/admin/audit?limit=1")).body.pagination.total;
    const { actions, notRefused } = await walkConsoleForms(server, ["/operator", `/operator/agents/${attacker.id}`], signedInPage, () => cookie, "/operator");
    // The sign-in form, before any session.
    for (const [name] of HOSTILE) {
      const page = await getPage(server, "/operator");
      const form = formsOf(page.html).find((candidate) => candidate.action === "/operator/login")!;
      const fields = form.fields.map(([field, value]): [string, string] => [field, field === "operatorKey" ? keys.operator : value]);
      const answer = await postForm(server, "/operator/login", [...fields, [name, "1"]], page.headers.get("set-cookie")!.split(";")[0]!);
      record(`POST /operator/login field ${name}`, answer.status, answer.html);
      if (answer.status !== 400) notRefused.push(`POST /operator/login field ${name}: ${answer.status}`);
    }
    expect(problems).toEqual([]);
    expect(notRefused).toEqual([]);
    for (const action of ["/operator/logout", "/operator/agents/:id/deposit", "/operator/agents/:id/correction"]) expect(actions).toContain(action.replace(":id", attacker.id));
    expect(actions.some((action) => /^\/operator\/agents\/[^/]+\/(un)?freeze$/.test(action))).toBe(true);
    expect((await server.admin("GET", "/admin/audit?limit=1")).body.pagination.total).toBe(before);
  });
});

describe("every MCP tool", () => {
  test("refuses hostile argument keys without a 500", async () => {
    problems.length = 0;
    const client = new Client({ name: "hostile-keys", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${keys.agent}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(40);
      for (const tool of tools) {
        const valid = sample(tool.inputSchema as Schema) as Record<string, unknown>;
        for (const entry of HOSTILE) {
          const variants: [string, Record<string, unknown>][] = [
            [`{${entry[0]}}`, withKey({}, entry)],
            [`valid + ${entry[0]}`, withKey(valid, entry)],
            ...(hasObjectInside(tool.inputSchema as Schema) ? [[`valid, ${entry[0]} nested`, sample(tool.inputSchema as Schema, entry) as Record<string, unknown>] as [string, Record<string, unknown>]] : []),
          ];
          for (const [variant, args] of variants) {
            try {
              const result = (await client.callTool({ name: tool.name, arguments: args })) as { isError?: boolean; content: { text?: string }[] };
              const text = result.content[0]?.text ?? "";
              record(`tool ${tool.name} ${variant}`, /^(INTERNAL_ERROR|HTTP_500)/.test(text) ? 500 : 200, text);
            } catch (error) {
              // The HTTP request itself was refused (a 400 is fine; a 500 is not).
              const message = String(error);
              record(`tool ${tool.name} ${variant}`, /HTTP 5\d\d|INTERNAL_ERROR/.test(message) ? 500 : 400, message);
            }
          }
        }
      }
    } finally {
      await client.close();
    }
    expect(problems).toEqual([]);
  });
});

describe("afterwards, nothing inherits what the keys tried to set", () => {
  test("another owner's agent is still held above its approval amount, its held outflow waits, small payments go through", async () => {
    const large = await server.request("POST", "/payments/send", { key: victim.apiKey, body: { toAgentId: payee.id, amount: 20, currency: "USDC" } });
    expect({ status: large.status, outcome: large.body.status }).toEqual({ status: 202, outcome: "AWAITING_APPROVAL" });
    expect((await server.request("GET", `/approvals/${heldOfVictim}`, { key: victim.apiKey })).body.status).toBe("PENDING");
    const small = await server.request("POST", "/payments/send", { key: victim.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC" } });
    expect({ status: small.status, outcome: small.body.status }).toEqual({ status: 201, outcome: "COMPLETED" });
    // The operator key the walk used still acts, and the audit log names only who acted.
    const audit = await server.request("GET", "/admin/audit?limit=100", { key: keys.operator });
    expect(audit.status).toBe(200);
    expect(audit.body.data.filter((entry: { operator: string }) => !["admin", "hostile-walker", "system"].includes(entry.operator))).toEqual([]);
    await expectLedgerOk(server);
  });
});
