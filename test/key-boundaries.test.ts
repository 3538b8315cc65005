// Where restricted keys meet the rest of agentbank (issue 32): keys made with a stolen credential end
// with its rotation (unless kept), an agent has at most 100 keys in force and the console shows every
// one of them, budgets fail closed in other currencies, and a key releasing money it did not commit
// (a contract's escrow, a conceded bet, a repayment) pays it as its own outflow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_ACTIVE_KEYS } from "../src/keys/create";
import { consoleLinksOf, formsOf, getPage, postForm, signIn } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { grantOverHttp, refresh, registerClient, toolReply, type Host } from "./helpers/oauth";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer()));
afterAll(() => server.close());

async function funded(amount = 1_000, currency = "USDC"): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount, currency);
  return agent;
}
async function makeKey(maker: string, body: Record<string, unknown> = {}): Promise<{ id: string; apiKey: string }> {
  const made = await server.request("POST", "/agents/me/keys", { key: maker, body: { name: "key", scopes: ["read", "pay", "manage", "contract", "bet", "lend"], ...body } });
  expect(made.status).toBe(201);
  return made.body;
}
const pay = (key: string, to: Agent, amount: number, currency = "USDC") => server.request("POST", "/payments/send", { key, body: { toAgentId: to.id, amount, currency } });

describe("rotation ends what the old credential made", () => {
  test("a thief's key (and the keys it made) stop when the agent rotates its key; keepRestrictedKeys keeps the owner's own", async () => {
    const agent = await funded();
    const payee = await server.register();
    const stolen = agent.apiKey;
    const backdoor = await makeKey(stolen);
    const child = await makeKey(backdoor.apiKey);
    const ownerMade = await makeKey(agent.ownerKey);
    expect((await pay(backdoor.apiKey, payee, 1)).status).toBe(201);

    const rotated = await server.request("POST", "/agents/me/keys/rotate", { key: stolen });
    expect(rotated.status).toBe(200);
    expect(rotated.body.revokedKeys).toBe(2);
    for (const key of [backdoor, child]) {
      expect((await pay(key.apiKey, payee, 1)).status).toBe(401);
      expect((await server.request("POST", "/agents/me/keys", { key: key.apiKey, body: { name: "more", scopes: ["read"] } })).status).toBe(401);
    }
    // A key the owner key made is the owner's: the agent key's rotation leaves it.
    expect((await pay(ownerMade.apiKey, payee, 1)).status).toBe(201);

    // Kept on purpose: the next rotation revokes nothing.
    const again = await server.request("POST", "/agents/me/keys/rotate", { key: rotated.body.apiKey, body: { keepRestrictedKeys: true } });
    expect(again.body.revokedKeys).toBe(0);
    const kept = await makeKey(again.body.apiKey);
    const third = await server.request("POST", "/agents/me/keys/rotate", { key: again.body.apiKey, body: { keepRestrictedKeys: true } });
    expect(third.status).toBe(200);
    expect((await pay(kept.apiKey, payee, 1)).status).toBe(201);
    await expectLedgerOk(server);
  });

  test("the owner key's rotation ends the keys it made, and not the agent key's", async () => {
    const agent = await funded();
    const payee = await server.register();
    const ownerMade = await makeKey(agent.ownerKey);
    const agentMade = await makeKey(agent.apiKey);
    const rotated = await server.request("POST", "/owner/key/rotate", { key: agent.ownerKey });
    expect(rotated.body.revokedKeys).toBe(1);
    expect((await pay(ownerMade.apiKey, payee, 1)).status).toBe(401);
    expect((await pay(agentMade.apiKey, payee, 1)).status).toBe(201);
    expect((await server.request("POST", "/owner/key/rotate", { key: rotated.body.ownerKey, body: { keepRestrictedKeys: "yes" } })).status).toBe(400);
    await expectLedgerOk(server);
  });
});

describe("every key is seen", () => {
  test(`at most ${MAX_ACTIVE_KEYS} keys in force; the console lists all of them with the count and revokes every one at once`, async () => {
    const agent = await funded();
    const payee = await server.register();
    const backdoor = await makeKey(agent.apiKey, { name: "backdoor" });
    for (let i = 1; i < MAX_ACTIVE_KEYS; i++) await makeKey(agent.apiKey, { name: `decoy ${i}`, scopes: ["read"] });
    const past = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "one too many", scopes: ["read"] } });
    expect(past.status).toBe(400);
    expect(past.body.message).toContain(`${MAX_ACTIVE_KEYS} restricted keys in force`);

    const session = await signIn(server, agent.ownerKey);
    const first = await getPage(server, "/console/security", session);
    expect(first.html).toContain(`${MAX_ACTIVE_KEYS} keys, ${MAX_ACTIVE_KEYS} in force`);
    const names = new Set<string>();
    for (let page = 1, html = first.html; ; ) {
      for (const [, name] of html.matchAll(/<strong class="key-name">([^<]+)<\/strong>/g)) names.add(name!);
      const older = consoleLinksOf(html).find((link) => link === `/console/security?page=${page + 1}`);
      if (!older) break;
      html = (await getPage(server, older, session)).html;
      page++;
    }
    expect(names.size).toBe(MAX_ACTIVE_KEYS);
    expect(names.has("backdoor")).toBe(true);

    const confirm = await getPage(server, "/console/security/revoke-all", session);
    expect(confirm.html).toContain(`(${MAX_ACTIVE_KEYS} in force)`);
    expect((await pay(backdoor.apiKey, payee, 1)).status).toBe(201);
    const form = formsOf(confirm.html).find((candidate) => candidate.action === "/console/security/revoke-all")!;
    const done = await postForm(server, form.action, form.fields, session);
    expect(done.html).toContain(`${MAX_ACTIVE_KEYS} restricted keys were revoked`);
    expect((await pay(backdoor.apiKey, payee, 1)).status).toBe(401);
    expect((await getPage(server, "/console/security", session)).html).toContain(`${MAX_ACTIVE_KEYS} keys, 0 in force`);
    // The console's own rotation says what ended with the old key.
    await makeKey(agent.apiKey, { name: "after" });
    const rotation = formsOf((await getPage(server, "/console/security/rotate", session)).html).find((candidate) => candidate.action === "/console/rotate")!;
    const rotated = await postForm(server, rotation.action, rotation.fields, session);
    expect(rotated.html).toContain("1 restricted key it made ended with it.");
    await expectLedgerOk(server);
  });
});

describe("budgets fail closed", () => {
  test("a key with only a USDC budget pays no USD and no EUR; a key with no budget pays any currency", async () => {
    const agent = await funded(1_000, "USD");
    await server.deposit(agent.id, 1_000, "EUR");
    await server.deposit(agent.id, 1_000, "USDC");
    const payee = await server.register();
    const usdcOnly = await makeKey(agent.apiKey, { budgets: { USDC: { total: 100 } } });
    for (const currency of ["USD", "EUR"]) {
      const refused = await pay(usdcOnly.apiKey, payee, 90, currency);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: "KEY_BUDGET_EXCEEDED", details: { currency, window: "currency", budgetCurrencies: ["USDC"] } });
    }
    expect((await pay(usdcOnly.apiKey, payee, 90)).status).toBe(201);
    const unbudgeted = await makeKey(agent.apiKey);
    expect((await pay(unbudgeted.apiKey, payee, 90, "USD")).status).toBe(201);
    expect(await server.balance(payee, "EUR")).toEqual({ available: 0, held: 0 });
    expect(await server.balance(payee, "USD")).toEqual({ available: 90, held: 0 });
    await expectLedgerOk(server);
  });
});

describe("releasing what another credential committed is an outflow of the key that releases it", () => {
  // The finding: a contract key with allowlist [B] and a 0.01 budget released a 50 escrow to C.
  const narrow = (agent: Agent, allowed: Agent) => makeKey(agent.apiKey, { allowlist: [allowed.id], budgets: { USDC: { total: 0.01 } } });

  test("a contract's escrow: refused by the key's allowlist, then by its budget; the agent key releases it", async () => {
    const agent = await funded();
    const b = await server.register();
    const c = await server.register();
    const conditions = [{ id: "done", type: "manual", description: "done", params: {} }];
    const made = await server.request("POST", "/contracts", { key: agent.apiKey, body: { counterpartyId: c.id, title: "work", description: "work", escrowAmount: 50, currency: "USDC", conditions } });
    expect((await server.request("POST", `/contracts/${made.body.id}/sign`, { key: c.apiKey })).status).toBe(200);
    const fulfil = (key: string) => server.request("POST", `/contracts/${made.body.id}/fulfill`, { key, body: { conditionId: "done" } });
    const onlyB = await narrow(agent, b);
    expect((await fulfil(onlyB.apiKey)).body).toMatchObject({ error: "KEY_SCOPE_DENIED", details: { counterpartyId: c.id } });
    const cButSmall = await makeKey(agent.apiKey, { allowlist: [c.id], budgets: { USDC: { total: 0.01 } } });
    expect((await fulfil(cButSmall.apiKey)).body).toMatchObject({ error: "KEY_BUDGET_EXCEEDED", details: { window: "total" } });
    expect(await server.balance(c)).toEqual({ available: 0, held: 0 });
    expect((await fulfil(agent.apiKey)).body.status).toBe("FULFILLED");
    expect(await server.balance(c)).toEqual({ available: 50, held: 0 });
    await expectLedgerOk(server);
  });

  test("a contract made by a key is released by that key without counting it twice", async () => {
    const agent = await funded();
    const c = await server.register();
    const key = await makeKey(agent.apiKey, { allowlist: [c.id], budgets: { USDC: { total: 50 } } });
    const conditions = [{ id: "done", type: "manual", description: "done", params: {} }];
    const made = await server.request("POST", "/contracts", { key: key.apiKey, body: { counterpartyId: c.id, title: "work", description: "work", escrowAmount: 50, currency: "USDC", conditions } });
    expect((await server.request("POST", `/contracts/${made.body.id}/sign`, { key: c.apiKey })).status).toBe(200);
    expect((await server.request("POST", `/contracts/${made.body.id}/fulfill`, { key: key.apiKey, body: { conditionId: "done" } })).body.status).toBe("FULFILLED");
    expect(await server.balance(c)).toEqual({ available: 50, held: 0 });
    await expectLedgerOk(server);
  });

  test("conceding a bet and repaying a loan: refused to a key that may not pay the winner or the lender", async () => {
    const agent = await funded();
    const b = await server.register();
    const c = await funded();
    const onlyB = await narrow(agent, b);
    // A bet the agent made; C accepted it. Conceding (NOT_MET from the creator) sends the stake to C.
    const bet = await server.request("POST", "/betting", { key: agent.apiKey, body: { description: "d", condition: "c", amount: 50, currency: "USDC" } });
    expect((await server.request("POST", `/betting/${bet.body.id}/accept`, { key: c.apiKey })).status).toBe(200);
    const concede = await server.request("POST", `/betting/${bet.body.id}/resolve`, { key: onlyB.apiKey, body: { outcome: "NOT_MET" } });
    expect(concede.body).toMatchObject({ error: "KEY_SCOPE_DENIED", details: { counterpartyId: c.id } });
    // Claiming the win moves nothing of the agent's: any key may report it.
    expect((await server.request("POST", `/betting/${bet.body.id}/resolve`, { key: onlyB.apiKey, body: { outcome: "MET" } })).status).toBe(200);
    // A loan the agent took from C: repaying sends money to C.
    const offer = await server.request("POST", "/lending/offers", { key: c.apiKey, body: { amount: 20, currency: "USDC", interestRate: 0, durationDays: 30, collateralPercent: 0 } });
    const loan = await server.request("POST", "/lending/borrow", { key: agent.apiKey, body: { offerId: offer.body.id } });
    const repay = await server.request("POST", `/lending/repay/${loan.body.id}`, { key: onlyB.apiKey, body: { amount: 20 } });
    expect(repay.body).toMatchObject({ error: "KEY_SCOPE_DENIED", details: { counterpartyId: c.id } });
    expect((await server.request("POST", `/lending/repay/${loan.body.id}`, { key: agent.apiKey, body: { amount: 20 } })).body.status).toBe("REPAID");
    await expectLedgerOk(server);
  });
});

describe("an MCP host's retry", () => {
  test("the same idempotencyKey with a renewed token is the same payment, made once", async () => {
    const agent = await funded();
    const payee = await server.register();
    const host: Host = { clientId: "", redirectUri: "http://127.0.0.1:9/callback" };
    host.clientId = ((await (await registerClient(server, [host.redirectUri])).json()) as { client_id: string }).client_id;
    const first = await grantOverHttp(server, await signIn(server, agent.ownerKey), host, ["read", "pay"], { USDC: "100" });
    const args = { toAgentId: payee.id, amount: 7, currency: "USDC", idempotencyKey: "host-retry-1" };
    const paid = await toolReply(server, first.access_token, "send_payment", args);
    expect(paid.status).toBe(200);
    const renewed = (await (await refresh(server, host, first.refresh_token)).json()) as { access_token: string };
    const retried = await toolReply(server, renewed.access_token, "send_payment", args);
    expect(retried.body.id).toBe(paid.body.id);
    expect(await server.balance(payee)).toEqual({ available: 7, held: 0 });
    await expectLedgerOk(server);
  });
});
