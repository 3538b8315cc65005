// Every list route of the OpenAPI document (every GET whose answer has `pagination`), walked past its
// first page: 7 items at limit 3, followed by `nextAfter` and stepped by `offset`, give the same ids in
// the same order, each once, none missing, with the right total; the ids of items that are not in the
// caller's list (another agent's, or what a public list no longer shows) appear nowhere, and as `after`
// they answer exactly like an id nobody has. A list route without a fixture here fails until it has one.
import { afterAll, expect, test } from "bun:test";
import { mnemonicToAccount } from "viem/accounts";
import { TEST_MNEMONIC } from "./chain/anvil";
import { signedPayment, startOfficialX402 } from "./x402/official";
import { startBatch402 } from "./x402/batch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type Reply } from "./helpers/server";

const ITEMS = 7;
const LIMIT = 3;

const x402 = await startOfficialX402();
await x402.mint(mnemonicToAccount(TEST_MNEMONIC).address, "100");
const receiver = startReceiver();
const batchOffer = startBatch402(x402.usdc);
const server = await startServer({
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x402.anvil.rpcUrl, CHAIN_ID: String(x402.chainId), USDC_ADDRESS: x402.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
});
afterAll(async () => {
  await server.close();
  receiver.stop();
  batchOffer.stop();
  await x402.stop();
});

/** Records the webhook-id of every delivery, by the path it was sent to. */
function startReceiver() {
  const received: { path: string; eventId: string }[] = [];
  const http = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      received.push({ path: new URL(request.url).pathname, eventId: request.headers.get("webhook-id") ?? "" });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${http.port}`, eventIds: (path: string) => received.filter((r) => r.path === path).map((r) => r.eventId), stop: () => http.stop(true) };
}

type Item = Record<string, any>;
type Page = { data: Item[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean; nextAfter: string | null } };

/** What a fixture made for one list route. */
type Filled = {
  /** Who lists (its agent or owner key, as the route's security asks); none for a public list. */
  caller?: Agent;
  /** Query parameters every request of the walk carries (a category only this fixture uses). */
  query?: Record<string, string>;
  /** What the list must show, as `identify` reads its items (by default their ids), in any order. */
  mine: string[];
  /** Cursor keys of items that are not in the caller's list. */
  foreign: string[];
  identify?: (item: Item) => string;
};

// ---- making things ---------------------------------------------------------------------------------

async function made(reply: Promise<Reply>, status = 201): Promise<any> {
  const { status: got, body } = await reply;
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}
const post = (agent: Agent, path: string, body?: unknown, status = 201) => made(server.request("POST", path, { key: agent.apiKey, body }), status);
async function agent(funds: Record<string, number> = {}): Promise<Agent> {
  const created = await server.register();
  for (const [currency, amount] of Object.entries(funds)) await server.fund(created.id, amount, currency);
  return created;
}
async function times<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let i = 0; i < n; i++) made.push(await make(i));
  return made;
}
const pay = (from: Agent, to: Agent, amount: number, status = 201) => post(from, "/payments/send", { toAgentId: to.id, amount, currency: "USDC" }, status);
const ids = (items: Item[]) => items.map((item) => item.id as string);
/** Waits until `probe` answers something. */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = await probe();
    if (value !== undefined) return value;
    await Bun.sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}
const everything = async (path: string, caller: Agent, key = caller.apiKey) => (await made(server.request("GET", `${path}?limit=100`, { key }), 200)).data as Item[];

const negotiation = (from: Agent, to: Agent) => post(from, "/negotiations", { counterpartyId: to.id, subject: "walk", offer: { amount: 1, currency: "USDC" } });
const contract = (from: Agent, to: Agent) =>
  post(from, "/contracts", { counterpartyId: to.id, title: "walk", description: "", escrowAmount: 1, currency: "USDC", conditions: [{ id: "done", type: "DELIVERY", description: "done", params: {} }] });
const subscription = (from: Agent, to: Agent) => post(from, "/subscriptions", { recipientId: to.id, amount: 1, currency: "USDC", frequency: "DAILY" });
const bet = (from: Agent, currency = "USDC") => post(from, "/betting", { description: "walk", condition: "it rains", amount: 1, currency });
const loanOffer = (from: Agent, currency = "USDC") =>
  post(from, "/lending/offers", { amount: 1, currency, interestRate: 5, durationDays: 30, collateralPercent: 50 });
const borrow = (from: Agent, offerId: string) => post(from, "/lending/borrow", { offerId }, 200);
const service = (from: Agent, category: string) => post(from, "/services", { name: "walk", description: "", category, price: 1, currency: "USDC", pricingUnit: "FIXED" });
const booking = async (from: Agent, serviceId: string) => post(from, "/bookings", { quoteId: (await post(from, "/quotes", { serviceId }, 200)).id });
const withdraw = (from: Agent, to: Agent) => post(from, "/wallets/withdraw", { toAddress: to.registration.wallet.address, amount: 1 }, 200);
const x402Pay = async (from: Agent) => (await post(from, "/x402/pay", { url: `${x402.v1Url}/paid`, maxAmount: 1 }, 200)).payment.id as string;
/** An outflow held for the owner: the policy holds everything above 1 USDC. */
async function heldPayments(from: Agent, to: Agent, n: number): Promise<string[]> {
  await made(server.request("PUT", "/owner/policy", { key: from.ownerKey, body: { approvalAbove: { USDC: 1 } } }), 200);
  return times(n, async () => (await pay(from, to, 2, 202)).approvalId);
}
/** Deliveries to an agent's webhook of `n` payments to it, once each is recorded; their event ids. */
async function deliveredPayments(to: Agent, n: number): Promise<string[]> {
  const path = `/walk/${to.id}`;
  await made(server.request("PUT", "/agents/me/webhook", { key: to.apiKey, body: { webhookUrl: `${receiver.url}${path}` } }), 200);
  const payer = await agent({ USDC: n });
  await times(n, () => pay(payer, to, 1));
  return eventually(async () => {
    const received = receiver.eventIds(path);
    const recorded = await everything("/agents/me/webhook/deliveries", to);
    return received.length >= n && recorded.length === received.length ? received : undefined;
  }, `${n} webhook deliveries to ${to.id}`);
}

// ---- one fixture per list route ----------------------------------------------------------------------

const FIXTURES: Record<string, () => Promise<Filled>> = {
  "/agents/me/blocks": async () => {
    const [caller, other] = [await agent(), await agent()];
    const block = async (blocker: Agent) => {
      const blocked = await agent();
      await post(blocker, "/agents/me/block", { agentId: blocked.id }, 200);
      return blocked.id;
    };
    return { caller, mine: await times(ITEMS, () => block(caller)), foreign: await times(2, () => block(other)), identify: (item) => item.agentId };
  },
  "/agents/me/keys": async () => {
    const [caller, other] = [await agent(), await agent()];
    const key = async (owner: Agent) => (await post(owner, "/agents/me/keys", { name: "walk", scopes: ["read"] }, 201)).id as string;
    return { caller, mine: await times(ITEMS, () => key(caller)), foreign: await times(2, () => key(other)) };
  },
  "/agents/me/webhook/deliveries": async () => {
    const [caller, other] = [await agent(), await agent()];
    const mine = await deliveredPayments(caller, ITEMS);
    await deliveredPayments(other, 2);
    return { caller, mine, foreign: ids(await everything("/agents/me/webhook/deliveries", other)), identify: (item) => item.eventId };
  },
  "/messages/inbox": async () => {
    const [caller, sender] = [await agent(), await agent()];
    const message = (from: Agent, to: Agent) => post(from, "/messages", { recipientId: to.id, subject: "walk", body: "hi" });
    return { caller, mine: ids(await times(ITEMS, () => message(sender, caller))), foreign: ids(await times(2, () => message(caller, sender))) };
  },
  "/negotiations/mine": async () => {
    const caller = await agent();
    const mine = ids(await times(ITEMS, async () => negotiation(caller, await agent())));
    return { caller, mine, foreign: ids(await times(2, async () => negotiation(await agent(), await agent()))) };
  },
  "/owner/approvals": async () => {
    const [caller, other, payee] = [await agent({ USDC: 100 }), await agent({ USDC: 100 }), await agent()];
    return { caller, mine: await heldPayments(caller, payee, ITEMS), foreign: await heldPayments(other, payee, 2) };
  },
  "/wallets/history": async () => {
    const [caller, payer] = [await agent(), await agent({ USDC: 100 })];
    const mine = ids(await times(ITEMS, () => pay(payer, caller, 1)));
    // The payer's own entries (its deposit and the payments) are postings of another agent's history.
    return { caller, mine, foreign: ids(await everything("/wallets/history", payer)), identify: (item) => item.reference.id };
  },
  "/wallets/withdrawals": async () => {
    const [caller, other] = [await agent({ USDC: 100 }), await agent({ USDC: 100 })];
    return { caller, mine: ids(await times(ITEMS, () => withdraw(caller, other))), foreign: ids(await times(2, () => withdraw(other, caller))) };
  },
  "/x402/payments": async () => {
    const [caller, other] = [await agent({ USDC: 10 }), await agent({ USDC: 10 })];
    return { caller, mine: await times(ITEMS, () => x402Pay(caller)), foreign: await times(2, () => x402Pay(other)) };
  },
  "/x402/channels": async () => {
    // Each payment to the raw offer leaves a channel whose deposit never lands, so the next opens another.
    const [caller, other] = [await agent({ USDC: 10 }), await agent({ USDC: 10 })];
    const open = async (from: Agent) => (await post(from, "/x402/pay", { url: batchOffer.url, maxAmount: 1 }, 200)).channel.id as string;
    return { caller, mine: await times(ITEMS, () => open(caller)), foreign: await times(2, () => open(other)) };
  },
  "/x402/facilitator/discovery/resources": async () => {
    // A list every agent sees: the resources sold through the facilitator with the bazaar extension, each
    // by a seller of its own (a new seller's gas covers one settlement a day). One verified, never settled: not listed.
    const caller = await agent();
    const buyer = privateKeyToAccount(generatePrivateKey());
    await x402.mint(buyer.address, "1");
    const sell = async (n: number, settled: boolean) => {
      const seller = await agent();
      const to = (await made(server.request("GET", "/wallets/blockchain", { key: seller.apiKey }), 200)).address;
      const url = `https://shop.example/item/${n}`;
      const body = await signedPayment(x402, buyer, { to, resource: { url }, extensions: { bazaar: { info: { input: { type: "http", method: "GET" } } } } });
      expect((await made(server.request("POST", "/x402/facilitator/verify", { key: seller.apiKey, body }), 200)).isValid).toBe(true);
      if (settled) expect((await made(server.request("POST", "/x402/facilitator/settle", { key: seller.apiKey, body }), 200)).success).toBe(true);
      return { url, seller };
    };
    const mine: string[] = [];
    for (let n = 0; n < ITEMS; n++) mine.push((await sell(n, true)).url);
    const unsold = await sell(ITEMS, false);
    // Not items of the list (an agent id, and the unsold entry's seller): as `after` they must answer like an id nobody has.
    return { caller, mine, foreign: [unsold.seller.id], identify: (item) => item.resource as string };
  },
  "/lending/offers": async () => {
    // A public list: the open EUR offers (no other fixture lends EUR). Cancelled or taken ones left it.
    const [caller, lender, borrower] = [await agent({ EUR: 10 }), await agent({ EUR: 100 }), await agent({ EUR: 10 })];
    const mine = ids(await times(ITEMS, () => loanOffer(lender, "EUR")));
    const cancelled = await times(2, async () => (await made(server.request("DELETE", `/lending/offers/${(await loanOffer(lender, "EUR")).id}`, { key: lender.apiKey }), 200)).id);
    const taken = (await borrow(borrower, (await loanOffer(lender, "EUR")).id)).offerId;
    return { caller, query: { currency: "EUR" }, mine, foreign: [...cancelled, taken] };
  },
  "/lending/my-loans": async () => {
    const [caller, other, lender] = [await agent({ USDC: 100 }), await agent({ USDC: 100 }), await agent({ USDC: 100 })];
    const mine = ids(await times(ITEMS, async () => borrow(caller, (await loanOffer(lender)).id)));
    return { caller, mine, foreign: ids(await times(2, async () => borrow(other, (await loanOffer(lender)).id))) };
  },
  "/betting/open": async () => {
    // A public list: others' open EUR bets (no other fixture bets EUR). The caller's own and a taken one are not in it.
    const [caller, bettor, taker] = [await agent({ EUR: 10 }), await agent({ EUR: 10 }), await agent({ EUR: 10 })];
    const mine = ids(await times(ITEMS, () => bet(bettor, "EUR")));
    const taken = (await bet(bettor, "EUR")).id;
    await post(taker, `/betting/${taken}/accept`, undefined, 200);
    return { caller, query: { currency: "EUR" }, mine, foreign: [...ids(await times(2, () => bet(caller, "EUR"))), taken] };
  },
  "/betting/my-bets": async () => {
    const [caller, other] = [await agent({ USDC: 100 }), await agent({ USDC: 100 })];
    return { caller, mine: ids(await times(ITEMS, () => bet(caller))), foreign: ids(await times(2, () => bet(other))) };
  },
  "/contracts/mine": async () => {
    const [caller, other, counterparty] = [await agent({ USDC: 100 }), await agent({ USDC: 100 }), await agent()];
    return { caller, mine: ids(await times(ITEMS, () => contract(caller, counterparty))), foreign: ids(await times(2, () => contract(other, counterparty))) };
  },
  "/subscriptions/mine": async () => {
    const [caller, other] = [await agent({ USDC: 100 }), await agent({ USDC: 100 })];
    const mine = ids(await times(ITEMS, async () => subscription(caller, await agent())));
    return { caller, mine, foreign: ids(await times(2, async () => subscription(other, await agent()))) };
  },
  "/services/discover": async () => {
    // A public list, narrowed to a category of its own; services taken off it are not in it.
    const provider = await agent();
    const category = `walk-${crypto.randomUUID()}`;
    const mine = ids(await times(ITEMS, () => service(provider, category)));
    const withdrawn = await times(2, async () => {
      const id = (await service(provider, category)).id;
      await made(server.request("DELETE", `/services/${id}`, { key: provider.apiKey }), 200);
      return id;
    });
    return { query: { category }, mine, foreign: withdrawn };
  },
  "/admin/mail": async () => {
    // The operator's list: every message is in its scope, so nothing is foreign to it; `to` narrows it to this fixture's.
    const to = `walk-${crypto.randomUUID()}@example.com`;
    const mine = await times(ITEMS, async () => (await made(server.admin("POST", "/admin/mail/test", { to }), 202)).id as string);
    return { query: { to }, mine, foreign: [] };
  },
  "/admin/operators": async () => {
    // The operator's lists below hold everything of their kind: nothing is foreign to them; a query narrows each to its fixture's.
    const q = `walk-op-${crypto.randomUUID().slice(0, 8)}`;
    const mine = await times(ITEMS, async (i) => (await made(server.admin("POST", "/admin/operators", { name: `${q}-${i}` }))).id as string);
    return { query: { q }, mine, foreign: [] };
  },
  "/admin/audit": async () => {
    const operator = `walk-audit-${crypto.randomUUID().slice(0, 8)}`;
    const key = (await made(server.admin("POST", "/admin/operators", { name: operator }))).apiKey as string;
    const mine = await times(ITEMS, async () => {
      const reply = await server.request("POST", "/admin/mail/test", { key, body: { to: "walk-audit@example.com" } });
      expect(reply.status).toBe(202);
      return reply.headers.get("request-id")!;
    });
    return { query: { operator }, mine, foreign: [], identify: (item) => item.requestId };
  },
  "/admin/agents": async () => {
    const q = `walk-agent-${crypto.randomUUID().slice(0, 8)}`;
    return { query: { q }, mine: await times(ITEMS, async (i) => (await server.register({ name: `${q}-${i}` })).id), foreign: [] };
  },
  "/admin/webhooks/failing": async () => {
    const [caller, payer] = [await agent(), await agent({ USDC: ITEMS })];
    // Nothing listens on the discard port: every delivery fails.
    await made(server.request("PUT", "/agents/me/webhook", { key: caller.apiKey, body: { webhookUrl: "http://127.0.0.1:9/walk" } }), 200);
    await times(ITEMS, () => pay(payer, caller, 1));
    const mine = await eventually(async () => {
      const attempts = await everything("/agents/me/webhook/deliveries", caller);
      return attempts.length >= ITEMS ? ids(attempts) : undefined;
    }, `${ITEMS} failed deliveries`);
    return { query: { agentId: caller.id }, mine, foreign: [] };
  },
  "/admin/withdrawals": async () => {
    const [caller, other] = [await agent({ USDC: 100 }), await agent()];
    return { query: { agentId: caller.id }, mine: ids(await times(ITEMS, () => withdraw(caller, other))), foreign: [] };
  },
  "/bookings/mine": async () => {
    const [caller, other, provider] = [await agent({ USDC: 100 }), await agent({ USDC: 100 }), await agent()];
    const { id } = await service(provider, "walk-bookings");
    return { caller, mine: ids(await times(ITEMS, () => booking(caller, id))), foreign: ids(await times(2, () => booking(other, id))) };
  },
};

// ---- the walks ---------------------------------------------------------------------------------------

type Operation = { security?: Record<string, string[]>[]; responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> };
const spec = (await server.request("GET", "/swagger/json")).body as { paths: Record<string, Record<string, Operation>> };
const LISTS = Object.entries(spec.paths)
  .filter(([, methods]) => methods.get?.responses?.["200"]?.content?.["application/json"]?.schema?.properties?.pagination)
  .map(([path, methods]) => ({ path, security: Object.keys(methods.get!.security?.[0] ?? {})[0] }));

test("every list route of the OpenAPI document has a fixture here, and every fixture a list route", () => {
  expect(LISTS.length).toBeGreaterThanOrEqual(16);
  for (const { path } of LISTS) expect(FIXTURES[path], `${path} is a list route: add to FIXTURES in test/paging-walk.test.ts how to make ${ITEMS} items of it`).toBeDefined();
  expect(Object.keys(FIXTURES).filter((path) => !LISTS.some((list) => list.path === path))).toEqual([]);
});

/** A well-formed id of the same scheme as `id` that names nothing. */
function unknownLike(id: string): string {
  if (/^[0-9]+$/.test(id)) return "999999999999";
  if (/^[0-9a-f]{8}-/.test(id)) return crypto.randomUUID();
  return `${id.split("_")[0]}_unknownUnknownX`;
}

for (const { path, security } of LISTS) {
  test(`${path}: nextAfter and offset walk the same ${ITEMS} items; another's id as after is an unknown id`, async () => {
    const fill = FIXTURES[path];
    if (!fill) throw new Error(`${path} is a list route: add to FIXTURES in test/paging-walk.test.ts how to make ${ITEMS} items of it`);
    const { caller, query = {}, mine, foreign, identify = (item: Item) => item.id } = await fill();
    const key = security === "adminKey" ? server.adminKey : security === "ownerKey" ? caller?.ownerKey : security === "agentKey" ? caller?.apiKey : undefined;
    if (security && !key) throw new Error(`${path} needs a key: its fixture must name the caller`);
    const get = (params: Record<string, string | number>) => server.request<Page>("GET", `${path}?${new URLSearchParams({ ...query, ...params } as Record<string, string>)}`, { key });
    const cursorOf = (item: Item) => (item.id ?? item.agentId) as string;
    const pageAt = async (params: Record<string, string | number>) => {
      const reply = await get({ limit: LIMIT, ...params });
      expect(reply.status, `${path} ${JSON.stringify(params)}: ${JSON.stringify(reply.body)}`).toBe(200);
      const { data, pagination } = reply.body;
      expect(data.length).toBeLessThanOrEqual(LIMIT);
      expect([pagination.total, pagination.limit]).toEqual([mine.length, LIMIT]);
      expect(pagination.nextAfter).toBe(pagination.hasMore ? cursorOf(data.at(-1)!) : null);
      return reply.body;
    };

    const byCursor: Item[] = [];
    for (let page = await pageAt({}); ; page = await pageAt({ after: page.pagination.nextAfter! })) {
      byCursor.push(...page.data);
      if (!page.pagination.hasMore || byCursor.length > 3 * ITEMS) break;
    }
    const byOffset: Item[] = [];
    for (let offset = 0; ; offset += LIMIT) {
      const page = await pageAt({ offset });
      byOffset.push(...page.data);
      if (!page.pagination.hasMore || byOffset.length > 3 * ITEMS) break;
    }

    const walked = byCursor.map(cursorOf);
    expect(mine.length).toBeGreaterThanOrEqual(ITEMS);
    expect(walked).toEqual(byOffset.map(cursorOf));
    expect(new Set(walked).size).toBe(walked.length);
    expect(byCursor.map(identify).toSorted()).toEqual(mine.toSorted());
    for (const id of foreign) expect(walked).not.toContain(id);

    // Every list but the operator's has items that are not the caller's; an id nobody has is refused by every one.
    if (security !== "adminKey") expect(foreign.length).toBeGreaterThan(0);
    expect((await get({ limit: LIMIT, after: unknownLike(walked[0]!) })).status).toBe(400);
    for (const id of foreign) {
      const [theirs, nobodys] = [await get({ limit: LIMIT, after: id }), await get({ limit: LIMIT, after: unknownLike(id) })];
      const answer = ({ status, body }: Reply) => ({ status, body: { ...body, requestId: undefined } });
      expect(answer(theirs), `${path}: after=${id}, not the caller's`).toEqual(answer(nobodys));
      expect(nobodys.status).toBe(400);
      expect(nobodys.body).toMatchObject({ error: "VALIDATION_ERROR", message: expect.stringContaining("no such item") });
    }
  }, 120_000);
}

test("the ledger holds after every list was filled", async () => {
  await expectLedgerOk(server);
});
