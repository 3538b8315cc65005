// The brake (issue 33), generated: every kind of outflow (OUTFLOW_KINDS, the kinds test/money-paths.test.ts
// finds claimed in its inventory) is started by a frozen agent over REST and MCP, with its own key and
// with a restricted key, and refused with 403 AGENT_FROZEN with nothing moved; unfrozen, each goes
// through. Every release by request (RELEASES) is refused or made as its kind says. Money coming in is
// credited while frozen; a subscription due while frozen is neither charged nor counted as failed, and
// is charged once per missed period after the unfreeze. A kind without its row here fails the first test.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { OUTFLOW_KINDS, type OutflowKind } from "../src/outflows/kinds";
import { RELEASES, type ReleaseKind } from "../src/outflows/release";
import { SCOPES } from "../src/keys/scopes";
import { TEST_MNEMONIC } from "./chain/anvil";
import { financialNotifications } from "./helpers/inbox";
import { expectLedgerOk } from "./helpers/ledger";
import { toolFor, toolReply } from "./helpers/oauth";
import { ADMIN_KEY, startServer, type Agent, type Reply, type TestServer } from "./helpers/server";
import { PRICE_UNITS, startHostile402, startOfficialX402, type Hostile402, type OfficialX402 } from "./x402/official";

setDefaultTimeout(120_000);

const USDC = "USDC";
const DAY = 86_400;
let x: OfficialX402;
let hostile: Hostile402;
let server: TestServer;

beforeAll(async () => {
  x = await startOfficialX402();
  hostile = startHostile402();
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" } });
});
afterAll(async () => {
  hostile?.stop();
  await server?.close();
  await x?.stop();
});

// ---- the parties and the brakes ---------------------------------------------------------------------

type Parties = { a: Agent; b: Agent; bAddress: string };
async function parties(): Promise<Parties> {
  const a = await server.register();
  const b = await server.register();
  await server.deposit(a.id, 1_000, USDC);
  await server.deposit(b.id, 1_000, USDC);
  const bAddress = (await server.request("GET", "/wallets/blockchain", { key: b.apiKey })).body.address;
  return { a, b, bAddress };
}

const brake = (agent: Agent, action: "freeze" | "unfreeze", body?: Record<string, unknown>) => server.request("POST", `/owner/agents/${agent.id}/${action}`, { key: agent.ownerKey, body });
const operatorBrake = (agent: Agent, action: "freeze" | "unfreeze", body?: Record<string, unknown>) => server.request("POST", `/admin/agents/${agent.id}/${action}`, { key: ADMIN_KEY, body });
const frozen = async (agent: Agent) => (await server.request("GET", "/agents/me", { key: agent.apiKey })).body.frozen;
const total = async (agent: Agent) => {
  const { available, held } = await server.balance(agent, USDC);
  return { available, held };
};
const ok = (reply: Reply) => reply.status >= 200 && reply.status < 300 && reply.status !== 202;

/** How a request is made: REST with a bearer key, or a tool call at /mcp with it. */
type Call = (method: string, path: string, body?: Record<string, unknown>) => Promise<Reply>;
const rest = (key: string): Call => (method, path, body) => server.request(method, path, { key, body: method === "GET" ? undefined : (body ?? {}) });
const mcp = (key: string): Call => (method, path, body = {}) => toolReply(server, key, ...toolFor(method, path, body)) as Promise<Reply>;
async function restrictedKey(agent: Agent): Promise<string> {
  const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "freeze test", scopes: [...SCOPES] } });
  expect(made.status).toBe(201);
  return made.body.apiKey;
}
const CALLERS: Record<string, (agent: Agent) => Promise<Call>> = {
  "the agent key over REST": async (agent) => rest(agent.apiKey),
  "a restricted key over REST": async (agent) => rest(await restrictedKey(agent)),
  "the agent key over MCP": async (agent) => mcp(agent.apiKey),
  "a restricted key over MCP": async (agent) => mcp(await restrictedKey(agent)),
};

// ---- every outflow kind --------------------------------------------------------------------------------

type Outflow = {
  /** What the outflow needs from others first (an open bet, an offer, a quote); made before the freeze. */
  prepare?(parties: Parties): Promise<string>;
  start(call: Call, parties: Parties, prepared: string): Promise<Reply>;
};
const made = async (reply: Promise<Reply>) => {
  const { status, body } = await reply;
  if (status >= 300) throw new Error(`${status} ${JSON.stringify(body)}`);
  return body;
};

const OUTFLOWS: Record<OutflowKind, Outflow> = {
  PAYMENT: { start: (call, { b }) => call("POST", "/payments/send", { toAgentId: b.id, amount: 2, currency: USDC }) },
  X402: { start: (call) => call("POST", "/x402/pay", { url: `${hostile.url}/v2/amount/${PRICE_UNITS}`, maxAmount: 1 }) },
  BET: { start: (call) => call("POST", "/betting", { description: "freeze test", condition: "it rains", amount: 2, currency: USDC }) },
  BET_ACCEPT: {
    prepare: async ({ b }) => (await made(server.request("POST", "/betting", { key: b.apiKey, body: { description: "freeze test", condition: "it rains", amount: 2, currency: USDC } }))).id,
    start: (call, _, betId) => call("POST", `/betting/${betId}/accept`),
  },
  LOAN_OFFER: { start: (call) => call("POST", "/lending/offers", { amount: 2, currency: USDC, interestRate: 0, durationDays: 30, collateralPercent: 0 }) },
  LOAN_BORROW: {
    prepare: async ({ b }) => (await made(server.request("POST", "/lending/offers", { key: b.apiKey, body: { amount: 2, currency: USDC, interestRate: 0, durationDays: 30, collateralPercent: 50 } }))).id,
    start: (call, _, offerId) => call("POST", "/lending/borrow", { offerId }),
  },
  CONTRACT: {
    start: (call, { b }) =>
      call("POST", "/contracts", { counterpartyId: b.id, title: "freeze test", description: "work", escrowAmount: 2, currency: USDC, conditions: [{ id: "done", type: "manual", description: "done", params: {} }] }),
  },
  SUBSCRIPTION: { start: (call, { b }) => call("POST", "/subscriptions", { recipientId: b.id, amount: 2, currency: USDC, frequency: "DAILY" }) },
  BOOKING: {
    async prepare({ a, b }) {
      const service = await made(server.request("POST", "/services", { key: b.apiKey, body: { name: "freeze test", description: "", category: "test", price: 2, currency: USDC, pricingUnit: "FIXED" } }));
      return (await made(server.request("POST", "/quotes", { key: a.apiKey, body: { serviceId: service.id } }))).id;
    },
    start: (call, _, quoteId) => call("POST", "/bookings", { quoteId }),
  },
  WITHDRAWAL: { start: (call, { bAddress }) => call("POST", "/wallets/withdraw", { toAddress: bAddress, amount: 2 }) },
};

test("every outflow kind and every release kind has its row", () => {
  expect(Object.keys(OUTFLOWS).sort()).toEqual([...OUTFLOW_KINDS].sort());
  expect(Object.keys(RELEASE_SCENARIOS).sort()).toEqual(Object.keys(RELEASES).sort());
});

for (const [caller, makeCall] of Object.entries(CALLERS)) {
  test(`${caller}: every outflow kind is refused with AGENT_FROZEN and nothing moves; unfrozen, each goes through`, async () => {
    const ends = await parties();
    const { a, b } = ends;
    const call = await makeCall(a);
    const prepared = new Map<OutflowKind, string>();
    for (const kind of OUTFLOW_KINDS) prepared.set(kind, (await OUTFLOWS[kind].prepare?.(ends)) ?? "");
    expect((await brake(a, "freeze", { reason: "testing the brake" })).body).toMatchObject({ frozen: true, changed: true });
    expect(await frozen(a)).toBe(true);

    const before = { a: await total(a), b: await total(b), signed: hostile.payments.length };
    const refusals = [];
    for (const kind of OUTFLOW_KINDS) {
      const reply = await OUTFLOWS[kind].start(call, ends, prepared.get(kind)!);
      refusals.push({ kind, error: reply.body?.error, status: caller.endsWith("REST") ? reply.status : 403 });
    }
    expect(refusals).toEqual(OUTFLOW_KINDS.map((kind) => ({ kind, error: "AGENT_FROZEN", status: 403 })));
    // Nothing moved, nothing was held, and no x402 authorization was signed for the resource.
    expect({ a: await total(a), b: await total(b), signed: hostile.payments.length }).toEqual(before);
    expect((await server.request("GET", "/subscriptions/mine", { key: a.apiKey })).body.data).toEqual([]);

    expect((await brake(a, "unfreeze")).body).toMatchObject({ frozen: false, changed: true });
    for (const kind of OUTFLOW_KINDS) {
      const reply = await OUTFLOWS[kind].start(call, ends, prepared.get(kind)!);
      expect({ kind, ok: ok(reply), reply: ok(reply) ? null : reply.body }).toEqual({ kind, ok: true, reply: null });
    }
    expect((await total(a)).available).toBeLessThan(before.a.available);
    await expectLedgerOk(server);
  });
}

test("the operator's freeze refuses the same, and only the operator lifts it; the owner's stays when the operator lifts its own", async () => {
  const ends = await parties();
  const { a } = ends;
  const pay = () => OUTFLOWS.PAYMENT.start(rest(a.apiKey), ends, "");
  const byOperator = await operatorBrake(a, "freeze", { reason: "compliance review" });
  expect(byOperator.status).toBe(200);
  expect(byOperator.body).toMatchObject({ agentId: a.id, frozen: true, changed: true, brakes: { owner: null, operator: { reason: "compliance review" } } });
  expect((await pay()).body).toMatchObject({ error: "AGENT_FROZEN", details: { frozenBy: ["operator"] } });
  // The owner's unfreeze lifts only the owner's brake (there is none): still frozen.
  expect((await brake(a, "unfreeze")).body).toMatchObject({ frozen: true, changed: false, brakes: { operator: { reason: "compliance review" } } });
  expect((await pay()).body.error).toBe("AGENT_FROZEN");
  // Both on; the operator lifts its own, the owner's holds.
  expect((await brake(a, "freeze")).body).toMatchObject({ frozen: true, changed: true, brakes: { owner: { reason: null }, operator: { reason: "compliance review" } } });
  expect((await operatorBrake(a, "unfreeze")).body).toMatchObject({ frozen: true, changed: true, brakes: { owner: { reason: null }, operator: null } });
  expect((await pay()).body).toMatchObject({ error: "AGENT_FROZEN", details: { frozenBy: ["owner"] } });
  expect((await brake(a, "unfreeze")).body).toMatchObject({ frozen: false, changed: true, brakes: { owner: null, operator: null } });
  expect((await pay()).status).toBe(201);
  await expectLedgerOk(server);
});

// ---- releases by request ---------------------------------------------------------------------------------

type ReleaseScenario = {
  /** The commitment, made before the freeze. */
  make(parties: Parties, call: Call): Promise<string>;
  /** The agent's request that releases its money to the other party. */
  release(call: Call, id: string): Promise<Reply>;
};

const RELEASE_SCENARIOS: Record<ReleaseKind, ReleaseScenario> = {
  CONTRACT_CONDITION: {
    async make(ends, call) {
      const { b } = ends;
      const contract = await made(OUTFLOWS.CONTRACT.start(call, ends, ""));
      await made(server.request("POST", `/contracts/${contract.id}/sign`, { key: b.apiKey }));
      return contract.id;
    },
    release: (call, id) => call("POST", `/contracts/${id}/fulfill`, { conditionId: "done" }),
  },
  BET_CONCESSION: {
    async make(ends, call) {
      const { b } = ends;
      const bet = await made(OUTFLOWS.BET.start(call, ends, ""));
      await made(server.request("POST", `/betting/${bet.id}/accept`, { key: b.apiKey }));
      // The acceptor claims its win: the creator's concession settles the bet at once.
      await made(server.request("POST", `/betting/${bet.id}/resolve`, { key: b.apiKey, body: { outcome: "NOT_MET" } }));
      return bet.id;
    },
    // The creator bet the condition is met; reporting NOT_MET concedes its stake.
    release: (call, id) => call("POST", `/betting/${id}/resolve`, { outcome: "NOT_MET" }),
  },
  LOAN_REPAYMENT: {
    async make(ends, call) {
      const offerId = await OUTFLOWS.LOAN_BORROW.prepare!(ends);
      return (await made(OUTFLOWS.LOAN_BORROW.start(call, ends, offerId))).id;
    },
    release: (call, id) => call("POST", `/lending/repay/${id}`, { amount: 2 }),
  },
};

for (const [kind, { whileFrozen }] of Object.entries(RELEASES) as [ReleaseKind, { whileFrozen: boolean }][]) {
  for (const caller of ["the agent key over REST", "a restricted key over MCP"]) {
    test(`${kind} with ${caller}: ${whileFrozen ? "made while frozen (a debt it owes)" : "refused while frozen, made once unfrozen"}`, async () => {
      const ends = await parties();
      const { a, b } = ends;
      const call = await CALLERS[caller]!(a);
      const id = await RELEASE_SCENARIOS[kind].make(ends, call);
      await brake(a, "freeze");
      const before = await total(b);
      const frozenReply = await RELEASE_SCENARIOS[kind].release(call, id);
      if (whileFrozen) {
        expect(ok(frozenReply)).toBe(true);
        expect((await total(b)).available).toBeGreaterThan(before.available);
      } else {
        expect(frozenReply.body.error).toBe("AGENT_FROZEN");
        expect(await total(b)).toEqual(before);
        await brake(a, "unfreeze");
        expect(ok(await RELEASE_SCENARIOS[kind].release(call, id))).toBe(true);
        expect((await total(b)).available).toBeGreaterThan(before.available);
      }
      await expectLedgerOk(server);
    });
  }
}

// ---- what goes on while frozen ------------------------------------------------------------------------------

test("money coming in is credited while frozen: a payment, a deposit, a repayment to it, a bet it won, a contract's escrow to it", async () => {
  const { a, b } = await parties();
  const asB = rest(b.apiKey);
  const asA = rest(a.apiKey);
  // Before the freeze: a lends to b, bets with b, and b proposes a contract to a.
  const offer = await made(asA("POST", "/lending/offers", { amount: 10, currency: USDC, interestRate: 10, durationDays: 30, collateralPercent: 0 }));
  const loan = await made(asB("POST", "/lending/borrow", { offerId: offer.id }));
  const bet = await made(asA("POST", "/betting", { description: "freeze test", condition: "it rains", amount: 5, currency: USDC }));
  await made(asB("POST", `/betting/${bet.id}/accept`));
  const contract = await made(asB("POST", "/contracts", { counterpartyId: a.id, title: "t", description: "d", escrowAmount: 7, currency: USDC, conditions: [{ id: "done", type: "manual", description: "d", params: {} }] }));

  await brake(a, "freeze");
  const start = (await total(a)).available;
  expect((await asB("POST", "/payments/send", { toAgentId: a.id, amount: 3, currency: USDC })).status).toBe(201);
  await server.deposit(a.id, 4, USDC);
  expect(ok(await asB("POST", `/lending/repay/${loan.id}`, { amount: 11 }))).toBe(true);
  // Claiming the win moves nothing of a's: allowed; b concedes, and the pot is a's.
  expect(ok(await asA("POST", `/betting/${bet.id}/resolve`, { outcome: "MET" }))).toBe(true);
  expect(ok(await asB("POST", `/betting/${bet.id}/resolve`, { outcome: "MET" }))).toBe(true);
  // Signing moves nothing of a's; b's confirmation pays its escrow to a.
  expect(ok(await asA("POST", `/contracts/${contract.id}/sign`))).toBe(true);
  expect(ok(await asB("POST", `/contracts/${contract.id}/fulfill`, { conditionId: "done" }))).toBe(true);
  // The payment, the deposit, the repayment (10 + 10 %), the pot (a's own stake back and b's), the escrow.
  expect(await total(a)).toEqual({ available: start + 3 + 4 + 11 + 10 + 7, held: 0 });
  expect(await frozen(a)).toBe(true);
  await expectLedgerOk(server);
});

test("a subscription due while frozen is neither charged nor counted as failed; unfrozen, each period missed is charged once", async () => {
  const { a, b } = await parties();
  const subscription = await made(rest(a.apiKey)("POST", "/subscriptions", { recipientId: b.id, amount: 2, currency: USDC, frequency: "DAILY" }));
  const read = async () => (await server.request("GET", `/subscriptions/${subscription.id}`, { key: a.apiKey })).body;
  const charged = async () => (await financialNotifications(server, a, "subscription.")).map((data) => `${data.kind} ${data.period}`);
  await brake(a, "freeze");
  const before = await total(b);
  await server.advance(3 * DAY + 60);
  // The job ran (the clock's advance runs every job) and the read applies what is due: nothing was.
  expect(await read()).toMatchObject({ status: "ACTIVE", periodsCharged: 1, failedAttempts: 0, lastError: null });
  expect(await total(b)).toEqual(before);
  expect(await charged()).toEqual(["subscription.charged 0"]);

  await brake(a, "unfreeze");
  await server.advance(1);
  expect(await read()).toMatchObject({ status: "ACTIVE", periodsCharged: 4, failedAttempts: 0 });
  expect((await total(b)).available).toBe(before.available + 3 * 2);
  expect(await charged()).toEqual([0, 1, 2, 3].map((period) => `subscription.charged ${period}`));
  await expectLedgerOk(server);
});

test("a subscription cancelled while its payer is frozen is cancelled without charging the periods it missed", async () => {
  const { a, b } = await parties();
  const subscription = await made(rest(a.apiKey)("POST", "/subscriptions", { recipientId: b.id, amount: 2, currency: USDC, frequency: "DAILY" }));
  await brake(a, "freeze");
  const before = await total(b);
  await server.advance(2 * DAY + 60);
  const cancelled = await server.request("DELETE", `/subscriptions/${subscription.id}`, { key: a.apiKey });
  expect(cancelled.body).toMatchObject({ status: "CANCELLED", periodsCharged: 1, failedAttempts: 0 });
  await brake(a, "unfreeze");
  await server.advance(DAY);
  expect(await total(b)).toEqual(before);
  await expectLedgerOk(server);
});

test("a PAST_DUE subscription's retry falls while frozen: not attempted, its failures stay as they were; unfrozen, it is charged", async () => {
  const a = await server.register();
  const b = await server.register();
  await server.deposit(a.id, 2, USDC);
  const subscription = await made(rest(a.apiKey)("POST", "/subscriptions", { recipientId: b.id, amount: 2, currency: USDC, frequency: "DAILY" }));
  const read = async () => (await server.request("GET", `/subscriptions/${subscription.id}`, { key: a.apiKey })).body;
  await server.advance(DAY + 60);
  expect(await read()).toMatchObject({ status: "PAST_DUE", failedAttempts: 1 });
  await brake(a, "freeze");
  await server.deposit(a.id, 10, USDC);
  await server.advance(3 * DAY);
  expect(await read()).toMatchObject({ status: "PAST_DUE", failedAttempts: 1, periodsCharged: 1 });
  expect(await financialNotifications(server, a, "subscription.charge_failed")).toHaveLength(1);
  await brake(a, "unfreeze");
  await server.advance(1);
  expect(await read()).toMatchObject({ status: "ACTIVE", failedAttempts: 0, periodsCharged: 5 });
  expect(await total(b)).toEqual({ available: 10, held: 0 });
  await expectLedgerOk(server);
});

test("a held outflow: approving while frozen is refused and it stays PENDING; declining works; unfrozen, approving makes it", async () => {
  const { a, b } = await parties();
  await server.request("PUT", "/owner/policy", { key: a.ownerKey, body: { approvalAbove: { USDC: 5 } } });
  const held = async () => (await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 8, currency: USDC } })).body.approvalId as string;
  const [first, second] = [await held(), await held()];
  await brake(a, "freeze");
  const decide = (id: string, decision: string) => server.request("POST", `/owner/approvals/${id}/${decision}`, { key: a.ownerKey });
  const refused = await decide(first, "approve");
  expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 403, error: "AGENT_FROZEN" });
  expect((await server.request("GET", `/approvals/${first}`, { key: a.apiKey })).body.status).toBe("PENDING");
  expect((await decide(second, "decline")).body.status).toBe("DECLINED");
  await brake(a, "unfreeze");
  expect((await decide(first, "approve")).body.status).toBe("APPROVED");
  expect(await total(a)).toEqual({ available: 992, held: 0 });
  await expectLedgerOk(server);
});

test("an untaken bet is withdrawn by its creator (frozen or not): CANCELLED, the stake back; a taken one is 409, another agent's 404", async () => {
  const { a, b } = await parties();
  const bet = async () => (await made(rest(a.apiKey)("POST", "/betting", { description: "d", condition: "c", amount: 5, currency: USDC }))).id as string;
  const [open, taken] = [await bet(), await bet()];
  await made(server.request("POST", `/betting/${taken}/accept`, { key: b.apiKey }));
  await brake(a, "freeze");
  expect((await server.request("DELETE", `/betting/${open}`, { key: b.apiKey })).status).toBe(404);
  const withdrawn = await server.request("DELETE", `/betting/${open}`, { key: a.apiKey });
  expect(withdrawn.body).toMatchObject({ id: open, status: "CANCELLED" });
  expect((await server.request("DELETE", `/betting/${open}`, { key: a.apiKey })).status).toBe(409);
  expect((await server.request("DELETE", `/betting/${taken}`, { key: a.apiKey })).status).toBe(409);
  expect(await total(a)).toEqual({ available: 995, held: 5 });
  expect((await server.request("POST", `/betting/${open}/accept`, { key: b.apiKey })).status).toBe(409);
  await expectLedgerOk(server);
});

// ---- the freeze routes ---------------------------------------------------------------------------------------

describe("the freeze routes", () => {
  test("the owner key of that agent only: another agent's owner key and an unknown agent 404, an agent key 403, no key 401; nothing changes", async () => {
    const { a, b } = await parties();
    const attempt = (key: string | undefined, id = a.id, action = "freeze") => server.request("POST", `/owner/agents/${id}/${action}`, { key, body: {} });
    for (const action of ["freeze", "unfreeze"]) {
      expect((await attempt(b.ownerKey, a.id, action)).status).toBe(404);
      expect((await attempt(a.ownerKey, b.id, action)).status).toBe(404);
      expect((await attempt(a.ownerKey, crypto.randomUUID(), action)).status).toBe(404);
      expect((await attempt(a.apiKey, a.id, action)).status).toBe(403);
      expect((await attempt(await restrictedKey(a), a.id, action)).status).toBe(401);
      expect((await attempt(undefined, a.id, action)).status).toBe(401);
      expect((await server.request("POST", `/admin/agents/${a.id}/${action}`, { key: a.ownerKey })).status).toBe(401);
    }
    expect((await server.request("POST", `/admin/agents/${crypto.randomUUID()}/freeze`, { key: ADMIN_KEY })).status).toBe(404);
    // Bad bodies: 400, nothing changes.
    expect((await brake(a, "freeze", { reason: "x".repeat(501) })).status).toBe(400);
    expect((await brake(a, "freeze", { reason: "" })).status).toBe(400);
    expect((await brake(a, "freeze", { why: "unknown field" })).status).toBe(400);
    expect([await frozen(a), await frozen(b)]).toEqual([false, false]);
    await expectLedgerOk(server);
  });

  test("idempotent and recorded: freezing a frozen agent is 200 with nothing changed; GET /agents/me shows it; the agent is told once", async () => {
    const { a } = await parties();
    const first = await brake(a, "freeze", { reason: "key leaked" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ agentId: a.id, frozen: true, changed: true, brakes: { owner: { reason: "key leaked" }, operator: null } });
    const again = await brake(a, "freeze", { reason: "another reason" });
    expect(again.body).toEqual({ ...first.body, changed: false });
    expect(await frozen(a)).toBe(true);
    expect((await brake(a, "unfreeze")).body).toMatchObject({ frozen: false, changed: true });
    expect((await brake(a, "unfreeze")).body).toMatchObject({ frozen: false, changed: false });
    expect(await frozen(a)).toBe(false);
    expect((await financialNotifications(server, a, "agent.")).map((data) => data.kind)).toEqual(["agent.frozen", "agent.unfrozen"]);
  });

  test("exactly once under concurrency: of 10 freezes at once one changes it, and of 10 unfreezes one", async () => {
    const { a } = await parties();
    for (const action of ["freeze", "unfreeze"] as const) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => brake(a, action, { reason: "at once" })));
      expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
      expect(replies.filter((reply) => reply.body.changed)).toHaveLength(1);
    }
    expect((await financialNotifications(server, a, "agent.")).map((data) => data.kind)).toEqual(["agent.frozen", "agent.unfrozen"]);
  });
});
