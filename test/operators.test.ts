// Operators with names (issue 35): operator keys (pa_…) made, listed, rotated and revoked; every operator
// action in the append-only audit log under its operator's name, written with the action; the steering
// routes (agents searched, a balance corrected by a compensating entry, failing webhooks, the
// withdrawal queue). A revoked key is refused at the next request on every instance (two instances on
// one PostgreSQL database).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startAnvil, startRpcProxy, TEST_MNEMONIC, type Anvil } from "./chain/anvil";
import { claimByMail } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type Agent, type Reply, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

setDefaultTimeout(60_000);

const TREASURY = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

let anvil: Anvil;
let proxy: ReturnType<typeof startRpcProxy>;
let server: TestServer;
/** A webhook receiver that fails every delivery. */
const failing = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("no", { status: 502 }) });

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = startRpcProxy(anvil.rpcUrl);
  server = await startServer({
    env: { CHAIN_RPC_URL: proxy.url, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
  });
  await anvil.mint(TREASURY, "1000");
});
afterAll(async () => {
  await server.close();
  proxy.stop();
  anvil.stop();
  failing.stop(true);
});

const as = (key: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) => server.request(method, path, { key, body, headers });
const admin = as(ADMIN_KEY);
/** An operator key as POST /admin/operators answers it. */
type MadeKey = { id: string; name: string; apiKey: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
async function newOperator(name: string): Promise<MadeKey> {
  const made = await admin("POST", "/admin/operators", { name });
  expect(made.status).toBe(201);
  return made.body;
}
/** The audit entry of the request that answered `reply`. */
async function entryOf(reply: Reply, operator: string) {
  const requestId = reply.headers.get("request-id");
  const page = (await admin("GET", `/admin/audit?operator=${encodeURIComponent(operator)}&limit=100`)).body;
  return page.data.find((entry: { requestId: string }) => entry.requestId === requestId);
}
const auditCount = async () => (await admin("GET", "/admin/audit?limit=1")).body.pagination.total as number;

describe("operator keys", () => {
  test("made, listed (never the key), used, rotated (the old key 401 at once) and revoked (401 at once)", async () => {
    const ada = await newOperator("Ada Lovelace");
    expect(ada).toEqual({ id: expect.any(String), name: "Ada Lovelace", apiKey: expect.stringMatching(/^pa_[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String), lastUsedAt: null, revokedAt: null });
    expect((await as(ada.apiKey)("GET", "/admin/ledger/check")).status).toBe(200);
    const listed = (await admin("GET", "/admin/operators?q=lovelace")).body;
    expect(listed.data).toEqual([{ id: ada.id, name: "Ada Lovelace", createdAt: ada.createdAt, lastUsedAt: expect.any(String), revokedAt: null }]);
    expect(JSON.stringify((await admin("GET", "/admin/operators?limit=100")).body)).not.toContain("pa_");

    const rotated = await as(ada.apiKey)("POST", `/admin/operators/${ada.id}/rotate`);
    const newKey: string = rotated.body.apiKey;
    expect([rotated.status, rotated.body.id, rotated.body.name]).toEqual([200, ada.id, "Ada Lovelace"]);
    expect(newKey).toMatch(/^pa_/);
    expect(newKey).not.toBe(ada.apiKey);
    const old = await as(ada.apiKey)("GET", "/admin/audit");
    expect(old.status).toBe(401);
    expect(old.body.message).toContain("rotated, revoked or never issued");
    expect((await as(newKey)("GET", "/admin/audit")).status).toBe(200);

    const revoked = await admin("DELETE", `/admin/operators/${ada.id}`);
    expect(revoked.body).toMatchObject({ id: ada.id, revokedAt: expect.any(String) });
    expect((await as(newKey)("GET", "/admin/audit")).status).toBe(401);
    expect((await admin("DELETE", `/admin/operators/${ada.id}`)).status).toBe(409);
    expect((await admin("POST", `/admin/operators/${ada.id}/rotate`)).status).toBe(409);
    expect((await admin("DELETE", `/admin/operators/${crypto.randomUUID()}`)).status).toBe(404);
    // The name is free again once its key is revoked.
    expect((await newOperator("Ada Lovelace")).id).not.toBe(ada.id);
  });

  test("names: unique among keys in force, bounded, not the audit log's own; nothing made when refused", async () => {
    await newOperator("grace");
    const before = (await admin("GET", "/admin/operators?limit=100")).body.pagination.total;
    for (const [name, status] of [["grace", 409], ["admin", 409], ["System", 409], ["", 400], [" x", 400], ["a".repeat(65), 400], ["<script>", 400], ["x\ny", 400]] as const) {
      const refused = await admin("POST", "/admin/operators", { name });
      expect({ name, status: refused.status }).toEqual({ name, status });
    }
    expect((await admin("POST", "/admin/operators", { name: "ok", extra: 1 })).status).toBe(400);
    expect((await admin("GET", "/admin/operators?limit=100")).body.pagination.total).toBe(before);
  });

  test("an agent's or owner's key is 401 on every operator route; so is a made-up pa_ key", async () => {
    const agent = await server.register();
    for (const key of [agent.apiKey, agent.ownerKey, `pa_${"x".repeat(43)}`]) {
      expect((await as(key)("POST", "/admin/operators", { name: "intruder" })).status).toBe(401);
      expect((await as(key)("GET", "/admin/audit")).status).toBe(401);
    }
  });
});

describe.skipIf(TEST_POSTGRES === undefined)("two instances on one PostgreSQL database", () => {
  test("a key revoked or rotated on one is refused on the other at its next request", async () => {
    const first = await startServer();
    const second = await startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ADMIN_API_KEY: ADMIN_KEY } });
    try {
      const made = (await first.request("POST", "/admin/operators", { key: ADMIN_KEY, body: { name: "ada" } })).body;
      const onSecond = (key: string) => second.request("GET", "/admin/audit", { key });
      expect((await onSecond(made.apiKey)).status).toBe(200);
      const rotated = (await first.request("POST", `/admin/operators/${made.id}/rotate`, { key: ADMIN_KEY })).body;
      expect((await onSecond(made.apiKey)).status).toBe(401);
      expect((await onSecond(rotated.apiKey)).status).toBe(200);
      expect((await first.request("DELETE", `/admin/operators/${made.id}`, { key: ADMIN_KEY })).status).toBe(200);
      expect((await onSecond(rotated.apiKey)).status).toBe(401);
      // Each instance recorded its start.
      expect((await second.request("GET", "/admin/audit?action=service.start", { key: ADMIN_KEY })).body.pagination.total).toBe(2);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe("the audit log", () => {
  test("the start is recorded as `system`, with the configuration and no secret", async () => {
    const started = (await admin("GET", "/admin/audit?action=service.start")).body.data;
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ operator: "system", requestId: null, target: null, details: { adminApiKeySet: true, testClock: true, chain: { configured: true, chainId: anvil.chainId } } });
    const text = JSON.stringify(started[0]);
    for (const secret of [ADMIN_KEY, TEST_MNEMONIC, proxy.url]) expect(text).not.toContain(secret);
    expect(text).toContain(new URL(proxy.url).host);
  });

  /**
   * How to make each operator route do its work, as the named operator `walker`: a route of the OpenAPI
   * document with no row here fails the walk. Each answers the path (ids filled in), the body, the status
   * it must answer and what the entry names as its target.
   */
  type Call = { path: string; body?: unknown; status: number; target: string | null };
  let walker: MadeKey;
  let agent: Agent;
  const CALLS: Record<string, () => Promise<Call>> = {
    "POST /admin/deposits": async () => ({ path: "/admin/deposits", body: { agentId: agent.id, amount: 20, currency: "USDC" }, status: 201, target: agent.id }),
    "POST /admin/agents/{id}/correction": async () => ({ path: `/admin/agents/${agent.id}/correction`, body: { amount: 5, currency: "USDC", direction: "debit", reason: "walk" }, status: 201, target: agent.id }),
    "PUT /admin/agents/{id}/rate-limit": async () => ({ path: `/admin/agents/${agent.id}/rate-limit`, body: { limit: 500 }, status: 200, target: agent.id }),
    "POST /admin/agents/{id}/freeze": async () => ({ path: `/admin/agents/${agent.id}/freeze`, body: { reason: "walk" }, status: 200, target: agent.id }),
    "POST /admin/agents/{id}/unfreeze": async () => ({ path: `/admin/agents/${agent.id}/unfreeze`, status: 200, target: agent.id }),
    "POST /admin/bets/{betId}/resolve": async () => {
      const acceptor = await server.register();
      await server.deposit(acceptor.id, 10);
      const bet = (await server.request("POST", "/betting", { key: agent.apiKey, body: { description: "walk", condition: "it rains", amount: 1, currency: "USDC" } })).body;
      expect((await server.request("POST", `/betting/${bet.id}/accept`, { key: acceptor.apiKey })).status).toBe(200);
      return { path: `/admin/bets/${bet.id}/resolve`, body: { outcome: "VOID" }, status: 200, target: bet.id };
    },
    "POST /admin/chain/acknowledge": async () => {
      // The operator moves treasury USDC by hand; once the watcher has seen it, it is explained.
      const moved = await anvil.sendAsTreasury("transfer", [freshAddress(), 1_000_000n]);
      await anvil.mine(2);
      const transfer = await waitFor(async () => {
        await server.advance(1);
        return (await server.ledgerCheck()).chain?.unexplainedTransfers?.find((t: { txHash: string }) => t.txHash === moved.transactionHash);
      }, 20_000);
      return { path: "/admin/chain/acknowledge", body: { txHash: transfer.txHash, logIndex: transfer.logIndex, reason: "to cold storage" }, status: 200, target: `${transfer.txHash}:${transfer.logIndex}` };
    },
    "POST /admin/clock/advance": async () => ({ path: "/admin/clock/advance", body: { seconds: 1 }, status: 200, target: null }),
    "POST /admin/mail/test": async () => ({ path: "/admin/mail/test", body: { to: "walk@example.com" }, status: 202, target: "walk@example.com" }),
    "POST /admin/operators": async () => ({ path: "/admin/operators", body: { name: `walked-${crypto.randomUUID().slice(0, 8)}` }, status: 201, target: "(the new key's id)" }),
    "POST /admin/operators/{id}/rotate": async () => {
      const other = await newOperator(`rotated-${crypto.randomUUID().slice(0, 8)}`);
      return { path: `/admin/operators/${other.id}/rotate`, status: 200, target: other.id };
    },
    "DELETE /admin/operators/{id}": async () => {
      const other = await newOperator(`revoked-${crypto.randomUUID().slice(0, 8)}`);
      return { path: `/admin/operators/${other.id}`, status: 200, target: other.id };
    },
  };

  test("every operator route that changes something, called with a named key, leaves one entry with that name, its request id and target", async () => {
    walker = await newOperator("walker");
    agent = await server.register();
    await server.deposit(agent.id, 100);
    const document = (await admin("GET", "/swagger/json")).body as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).filter((method) => method !== "get" && path.startsWith("/admin/")).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.filter((route) => !CALLS[route]), "operator routes without a row in CALLS (test/operators.test.ts)").toEqual([]);
    expect(Object.keys(CALLS).filter((route) => !routes.includes(route))).toEqual([]);
    for (const route of routes) {
      const call = await CALLS[route]!();
      const reply = await as(walker.apiKey)(route.split(" ")[0]!, call.path, call.body);
      expect({ route, status: reply.status }).toEqual({ route, status: call.status });
      const entry = await entryOf(reply, "walker");
      const target = route === "POST /admin/operators" ? reply.body.id : call.target;
      expect({ route, entry }).toEqual({ route, entry: { id: expect.any(String), operator: "walker", action: expect.any(String), at: expect.any(String), requestId: reply.headers.get("request-id"), target, details: call.body ?? null } });
    }
    const actions = (await admin("GET", "/admin/audit?operator=walker&limit=100")).body.data.map((entry: { action: string }) => entry.action);
    expect(actions.toSorted()).toEqual(
      ["deposit.credit", "agent.correct", "agent.rate-limit", "agent.freeze", "agent.unfreeze", "bet.resolve", "chain.acknowledge", "clock.advance", "mail.test", "operator.create", "operator.rotate", "operator.revoke"].toSorted(),
    );
    await expectLedgerOk(server);
  });

  test.skipIf(TEST_POSTGRES !== undefined)("a backup handed out is recorded (SQLite)", async () => {
    const reply = await admin("GET", "/admin/backup");
    expect(reply.status).toBe(200);
    expect(await entryOf(reply, "admin")).toMatchObject({ action: "backup.take", target: expect.stringMatching(/^agentbank-.*\.db$/), details: null });
  });

  test("a refused action records nothing; the bootstrap key acts as `admin`", async () => {
    const before = await auditCount();
    const agent = await server.register();
    expect((await admin("POST", `/admin/agents/${agent.id}/correction`, { amount: 1, currency: "USDC", direction: "debit", reason: "too much" })).status).toBe(400);
    expect((await admin("PUT", `/admin/agents/${crypto.randomUUID()}/rate-limit`, { limit: 5 })).status).toBe(404);
    expect((await admin("POST", "/admin/deposits", { agentId: agent.id, amount: -1, currency: "USDC" })).status).toBe(400);
    expect(await auditCount()).toBe(before);
    const frozen = await admin("POST", `/admin/agents/${agent.id}/freeze`);
    expect(await entryOf(frozen, "admin")).toMatchObject({ operator: "admin", action: "agent.freeze", target: agent.id });
  });

  test("append-only: no route changes or removes an entry, and nothing in src/ updates or deletes one", async () => {
    const document = (await admin("GET", "/swagger/json")).body as { paths: Record<string, Record<string, unknown>> };
    const auditRoutes = Object.entries(document.paths).filter(([path]) => path.startsWith("/admin/audit"));
    expect(auditRoutes.map(([path, methods]) => [path, Object.keys(methods)])).toEqual([["/admin/audit", ["get"]]]);
    const root = join(import.meta.dir, "..");
    const writers: string[] = [];
    for (const file of new Glob("src/**/*.ts").scanSync(root)) {
      const text = await Bun.file(join(root, file)).text();
      for (const pattern of [/\bUPDATE\s+"?audit_log\b/i, /\bDELETE\s+FROM\s+"?audit_log\b/i, /\b(update|insertNew)\s*\(\s*auditLog\b/, /\bTRUNCATE\b[^;]*\baudit_log\b/i]) {
        if (pattern.test(text)) writers.push(`${file}: ${pattern}`);
      }
    }
    expect(writers).toEqual([]);
    // The check finds what it looks for: a planted statement is caught.
    expect(/\bDELETE\s+FROM\s+"?audit_log\b/i.test('yield* run("DELETE FROM audit_log WHERE id = ?", id)')).toBe(true);
  });
});

describe("steering", () => {
  test("a correction is a compensating entry: debit to the external account, refused beyond available, once per Idempotency-Key", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 100);
    const correct = (body: Record<string, unknown>, key?: string) =>
      admin("POST", `/admin/agents/${agent.id}/correction`, { currency: "USDC", reason: "deposit doubled by mistake", ...body }, key ? { "idempotency-key": key } : undefined);
    const debit = await correct({ amount: 30, direction: "debit" }, "fix-1");
    expect(debit.status).toBe(201);
    expect(debit.body).toMatchObject({ agentId: agent.id, direction: "debit", amount: 30, currency: "USDC", reason: "deposit doubled by mistake" });
    const again = await correct({ amount: 30, direction: "debit" }, "fix-1");
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.id]).toEqual([201, "true", debit.body.id]);
    expect((await correct({ amount: 31, direction: "debit" }, "fix-1")).status).toBe(409);
    expect(await server.balance(agent)).toEqual({ available: 70, held: 0 });

    const beyond = await correct({ amount: 70.01, direction: "debit" });
    expect([beyond.status, beyond.body.error]).toEqual([400, "INSUFFICIENT_BALANCE"]);
    expect(await server.balance(agent)).toEqual({ available: 70, held: 0 });
    for (const bad of [{ amount: 0, direction: "debit" }, { amount: 1, direction: "sideways" }, { amount: 1, direction: "credit", reason: "" }, { amount: 0.0000001, direction: "credit" }]) {
      expect((await correct(bad)).status).toBe(400);
    }
    // A frozen agent is corrected too: it is not the agent's outflow.
    expect((await admin("POST", `/admin/agents/${agent.id}/freeze`)).status).toBe(200);
    expect((await correct({ amount: 5, direction: "credit" })).status).toBe(201);
    expect(await server.balance(agent)).toEqual({ available: 75, held: 0 });

    const history = (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data;
    expect(history.slice(0, 2).map((entry: { type: string; amount: number }) => [entry.type, entry.amount])).toEqual([["CORRECTION", 5], ["CORRECTION", -30]]);
    const told = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: agent.apiKey })).body.data;
    expect(told.some((message: { metadata: { kind: string; amount: number } }) => message.metadata.kind === "balance.corrected" && message.metadata.amount === -30)).toBe(true);
    expect((await admin("GET", `/admin/audit?action=agent.correct&limit=100`)).body.data.filter((entry: { target: string }) => entry.target === agent.id)).toHaveLength(2);
    await expectLedgerOk(server);
  });

  test("agents are found by a piece of their name, their id or an owner's address, with balances and brakes", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const found = await server.register({ name: `Search-${tag}-bot`, ownerEmail: `finder-${tag}@example.com` });
    const other = await server.register({ name: `other-${tag}` });
    await server.deposit(found.id, 12.5);
    await admin("POST", `/admin/agents/${found.id}/freeze`);
    const search = async (q: string) => (await admin("GET", `/admin/agents?${new URLSearchParams({ q })}`)).body.data.map((agent: { id: string }) => agent.id);
    expect(await search(`search-${tag}`)).toEqual([found.id]);
    expect((await search(tag)).toSorted()).toEqual([found.id, other.id].toSorted());
    expect(await search(found.id)).toEqual([found.id]);
    expect(await search(`FINDER-${tag}@`)).toEqual([found.id]);
    // A LIKE wildcard is a character like any other.
    expect(await search(`${tag}%bot`)).toEqual([]);
    expect(await search("_")).not.toContain(other.id);
    const [view] = (await admin("GET", `/admin/agents?q=search-${tag}`)).body.data;
    expect(view).toMatchObject({ id: found.id, name: `Search-${tag}-bot`, ownerEmail: `finder-${tag}@example.com`, claimedBy: null, frozen: true, frozenBy: ["operator"], balances: [{ currency: "USDC", available: 12.5, held: 0 }] });
    expect((await admin("GET", `/admin/agents?q=${"x".repeat(255)}`)).status).toBe(400);
  });

  test("an agent claimed by an owner account shows the account's address and is found by it", async () => {
    const accounts = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false" } });
    try {
      const email = "claimer@example.com";
      const registered = (await accounts.request("POST", "/agents/register", { body: { name: "claimed-bot", ownerName: "Ada", ownerEmail: email } })).body;
      const list = async (q: string) => (await accounts.request("GET", `/admin/agents?${new URLSearchParams({ q })}`, { key: ADMIN_KEY })).body.data;
      expect((await list("claimed-bot"))[0].claimedBy).toBeNull();
      await claimByMail(accounts, email);
      expect(await list("claimer@")).toEqual([expect.objectContaining({ id: registered.agent.id, claimedBy: email })]);
    } finally {
      await accounts.close();
    }
  });

  test("failing webhooks across agents, newest first", async () => {
    const agent = await server.register();
    const payer = await server.register();
    await server.deposit(payer.id, 10);
    expect((await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: `http://127.0.0.1:${failing.port}/hook` } })).status).toBe(200);
    for (let n = 0; n < 2; n++) await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: agent.id, amount: 1, currency: "USDC" } });
    const page = await waitFor(async () => {
      const body = (await admin("GET", `/admin/webhooks/failing?agentId=${agent.id}`)).body;
      return body.data.length >= 2 ? body : undefined;
    });
    expect(page.data[0]).toMatchObject({ agentId: agent.id, outcome: "FAILED", httpStatus: 502, event: "payment.received" });
    expect(page.data[0].createdAt >= page.data[1].createdAt).toBe(true);
  });

  test("the withdrawal queue: stuck SUBMITTED ones oldest first, with their age", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 10);
    proxy.set("no-broadcast");
    const ids: string[] = [];
    try {
      for (let n = 0; n < 2; n++) {
        const reply = await server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: freshAddress(), amount: 1 } });
        expect(reply.status).toBe(200);
        ids.push(reply.body.id);
        await waitFor(async () => ((await server.request("GET", `/wallets/withdrawals/${reply.body.id}`, { key: agent.apiKey })).body.status === "SUBMITTED" ? true : undefined), 10_000);
      }
      await server.advance(600);
      const queue = (await admin("GET", `/admin/withdrawals?status=SUBMITTED&agentId=${agent.id}`)).body;
      expect(queue.data.map((withdrawal: { id: string }) => withdrawal.id)).toEqual(ids);
      const [oldest] = queue.data;
      expect([oldest.status, oldest.agentId, oldest.ageSeconds >= 600]).toEqual(["SUBMITTED", agent.id, true]);
      expect((await admin("GET", `/admin/withdrawals?status=STUCK`)).status).toBe(400);
    } finally {
      proxy.set("up");
    }
    // Broadcast again once the chain answers, and confirmed: nothing stays stuck.
    await waitFor(async () => {
      await anvil.mine(2);
      await server.advance(1);
      return (await admin("GET", `/admin/withdrawals?status=SUBMITTED&agentId=${agent.id}`)).body.pagination.total === 0 ? true : undefined;
    }, 20_000);
    await expectLedgerOk(server);
  });
});
