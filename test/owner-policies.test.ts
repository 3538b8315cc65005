// Owner policies and approvals (issue 18): every outflow path obeys the per-transaction cap, is held
// for approval above the approval amount (approve → made once; decline → hold released), the allowlist
// and the 24 h cap hold (the cap under concurrency too), approvals expire, and the ledger check passes
// after each. The chain paths (withdrawals, x402) are in owner-policies-chain.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { block, financialNotifications } from "./helpers/inbox";
import { expectLedgerOk } from "./helpers/ledger";
import { availableAfter, outflowPaths } from "./helpers/outflows";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer()));
afterAll(() => server.close());

const setPolicy = (agent: Agent, policy: Record<string, unknown>) => server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: policy });
const approvals = (agent: Agent, query = "") => server.request("GET", `/owner/approvals${query}`, { key: agent.ownerKey });
const approve = (agent: Agent, id: string, body?: unknown) => server.request("POST", `/owner/approvals/${id}/approve`, { key: agent.ownerKey, body });
const decline = (agent: Agent, id: string) => server.request("POST", `/owner/approvals/${id}/decline`, { key: agent.ownerKey });

async function funded(amount = 1_000): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}

let counterparty: Agent;
let provider: Agent;
const PATHS = outflowPaths(() => server, () => ({ counterparty, provider }));

beforeAll(async () => {
  counterparty = await funded(10_000);
  provider = await server.register();
});

describe("the policy itself", () => {
  test("only the owner key reads and sets it; an agent key is 403, so an agent cannot loosen its own limits", async () => {
    const agent = await funded();
    expect((await server.request("GET", "/owner/policy", { key: agent.apiKey })).status).toBe(403);
    expect((await server.request("PUT", "/owner/policy", { key: agent.apiKey, body: {} })).status).toBe(403);
    expect((await server.request("GET", "/owner/policy", {})).status).toBe(401);
    const empty = await server.request("GET", "/owner/policy", { key: agent.ownerKey });
    expect(empty.body).toEqual({ agentId: agent.id, perTransaction: {}, daily: {}, allowlist: null, approvalAbove: {}, spentLast24h: {}, remainingToday: {} });
  });

  test("PUT replaces it; amounts are checked like every amount; allowlisted agents must exist", async () => {
    const agent = await funded();
    const set = await setPolicy(agent, { perTransaction: { USDC: 50 }, daily: { USDC: 200, EUR: 10.5 }, allowlist: [counterparty.id], approvalAbove: { USDC: 20 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ perTransaction: { USDC: 50 }, daily: { USDC: 200, EUR: 10.5 }, allowlist: [counterparty.id], approvalAbove: { USDC: 20 }, remainingToday: { USDC: 200, EUR: 10.5 } });
    for (const bad of [
      { perTransaction: { USDC: -1 } },
      { perTransaction: { USDC: 0 } },
      { daily: { USDC: 0.0000001 } },
      { daily: { DOGE: 5 } },
      { approvalAbove: { USDC: "5" } },
      { allowlist: ["not-a-uuid"] },
      { allowlist: ["0198f3a1-0b2c-7d3e-8f4a-5b6c7d8e9f01"] },
      { somethingElse: true },
    ]) {
      const refused = await setPolicy(agent, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
    }
    // Nothing of the refused ones stuck; an empty PUT clears it.
    expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).body.perTransaction).toEqual({ USDC: 50 });
    expect((await setPolicy(agent, {})).body).toMatchObject({ perTransaction: {}, daily: {}, allowlist: null, approvalAbove: {} });
  });
});

describe("every outflow path", () => {
  for (const path of PATHS) {
    test(`${path.name}: above the per-transaction cap is 403 POLICY_LIMIT_EXCEEDED and changes nothing`, async () => {
      const agent = await funded();
      await setPolicy(agent, { perTransaction: { USDC: 10 } });
      const before = await server.balance(agent);
      const count = await path.count(agent);
      const refused = await path.make(agent, 10.01);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED", details: { currency: "USDC", window: "transaction", limit: 10, amount: 10.01 } });
      expect(await server.balance(agent)).toEqual(before);
      expect(await path.count(agent)).toBe(count);
      expect((await path.make(agent, 10)).status).toBeLessThan(300);
      await expectLedgerOk(server);
    });

    test(`${path.name}: above the approval amount it is held (202); approved, it is made once`, async () => {
      const agent = await funded(100);
      await setPolicy(agent, { approvalAbove: { USDC: 20 } });
      const count = await path.count(agent);
      const held = await path.make(agent, 30);
      expect(held.status).toBe(202);
      expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", amount: 30, currency: "USDC" });
      expect(await server.balance(agent)).toEqual({ available: 70, held: 30 });
      expect(await path.count(agent)).toBe(count);

      const listed = await approvals(agent);
      expect(listed.body.pending).toBe(1);
      expect(listed.body.data[0]).toMatchObject({ id: held.body.approvalId, status: "PENDING", amount: 30, usdValue: 30, agentId: agent.id });

      const approved = await approve(agent, held.body.approvalId, { termsHash: listed.body.data[0].termsHash });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: "APPROVED", reason: null });
      expect(approved.body.result).not.toBeNull();
      expect(await path.count(agent)).toBe(count + 1);
      // The money moved once: 30 left the available balance (to the payee, or into this path's own escrow).
      const after = await server.balance(agent);
      expect(after.available).toBe(availableAfter(path, 100, 30));
      // Approving again is refused and moves nothing.
      expect((await approve(agent, held.body.approvalId)).status).toBe(409);
      expect(await server.balance(agent)).toEqual(after);
      expect(await path.count(agent)).toBe(count + 1);
      expect((await financialNotifications(server, agent, "approval.")).map((n) => n.kind)).toEqual(["approval.approved"]);
      // The agent reads the outcome of its held request too.
      expect((await server.request("GET", `/approvals/${held.body.approvalId}`, { key: agent.apiKey })).body.status).toBe("APPROVED");
      await expectLedgerOk(server);
    });

    test(`${path.name}: held, then declined: the hold is released and the agent told why`, async () => {
      const agent = await funded(100);
      await setPolicy(agent, { approvalAbove: { USDC: 20 }, daily: { USDC: 50 } });
      const count = await path.count(agent);
      const held = await path.make(agent, 30);
      expect(held.status).toBe(202);
      // The held amount counts against the 24 h cap while it waits.
      expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).body.remainingToday).toEqual({ USDC: 20 });
      const declined = await decline(agent, held.body.approvalId);
      expect(declined.body).toMatchObject({ status: "DECLINED", reason: "DECLINED_BY_OWNER: your owner declined it" });
      expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
      expect(await path.count(agent)).toBe(count);
      expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).body.remainingToday).toEqual({ USDC: 50 });
      const told = await financialNotifications(server, agent, "approval.");
      expect(told).toEqual([expect.objectContaining({ kind: "approval.declined", approvalId: held.body.approvalId, reason: "DECLINED_BY_OWNER", amount: 30 })]);
      expect((await approve(agent, held.body.approvalId)).status).toBe(409);
      await expectLedgerOk(server);
    });
  }
});

describe("the rest of the policy", () => {
  test("allowlist: only listed counterparties; an open bet or loan offer has none and is refused", async () => {
    const agent = await funded();
    const other = await funded();
    await setPolicy(agent, { allowlist: [counterparty.id] });
    const refused = await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: other.id, amount: 1, currency: "USDC" } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "COUNTERPARTY_NOT_ALLOWED", details: { counterpartyId: other.id } });
    expect((await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: counterparty.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    expect((await PATHS[1]!.make(agent, 1)).body.error).toBe("COUNTERPARTY_NOT_ALLOWED");
    expect((await PATHS[3]!.make(agent, 1)).body.error).toBe("COUNTERPARTY_NOT_ALLOWED");
    expect(await server.balance(agent)).toEqual({ available: 999, held: 0 });
    await expectLedgerOk(server);
  });

  test("the 24 h cap holds under 20 concurrent outflows, and says what is left", async () => {
    const agent = await funded();
    await setPolicy(agent, { daily: { USDC: 100 } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? PATHS[0]! : PATHS[1]!).make(agent, 15)),
    );
    const made = replies.filter((reply) => reply.status < 300);
    expect(made.length).toBe(6);
    for (const reply of replies.filter((reply) => reply.status >= 300)) {
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED", details: { window: "24h", limit: 100, spent: 90, remaining: 10 } });
    }
    const { available, held } = await server.balance(agent);
    expect(available).toBe(910);
    expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).body).toMatchObject({ spentLast24h: { USDC: 90 }, remainingToday: { USDC: 10 } });
    expect(held + (1000 - available - held)).toBe(90);
    // A day later the window has moved on.
    await server.advance(24 * 3600 + 601);
    expect((await PATHS[0]!.make(agent, 15)).status).toBe(201);
    await expectLedgerOk(server);
  });

  test("a held outflow expires after 24 h: the hold is released and the agent is told", async () => {
    const agent = await funded(100);
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const held = await PATHS[0]!.make(agent, 40);
    expect(held.status).toBe(202);
    await server.advance(24 * 3600 + 5);
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    expect((await approvals(agent)).body.data[0]).toMatchObject({ id: held.body.approvalId, status: "EXPIRED" });
    expect((await approve(agent, held.body.approvalId)).status).toBe(409);
    expect((await financialNotifications(server, agent, "approval.")).map((n) => [n.kind, n.reason])).toEqual([["approval.expired", "APPROVAL_EXPIRED"]]);
    await expectLedgerOk(server);
  });

  test("an approval that can no longer be made (the payee blocked the agent meanwhile) is FAILED and released", async () => {
    const agent = await funded(100);
    const payee = await server.register();
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const held = await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.id, amount: 40, currency: "USDC" } });
    await block(server, payee, agent);
    const approved = await approve(agent, held.body.approvalId);
    expect(approved.body).toMatchObject({ status: "FAILED" });
    expect(approved.body.reason).toStartWith("FORBIDDEN:");
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    expect(await server.balance(payee)).toEqual({ available: 0, held: 0 });
    await expectLedgerOk(server);
  });

  test("the same Idempotency-Key replays the 202: one hold, one approval", async () => {
    const agent = await funded(100);
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const send = () =>
      server.request("POST", "/payments/send", { key: agent.apiKey, headers: { "idempotency-key": "held-1" }, body: { toAgentId: counterparty.id, amount: 40, currency: "USDC" } });
    const [first, second] = await Promise.all([send(), send()]);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.approvalId).toBe(first.body.approvalId);
    expect(await server.balance(agent)).toEqual({ available: 60, held: 40 });
    expect((await approvals(agent)).body.pagination.total).toBe(1);
    await expectLedgerOk(server);
  });

  test("approving with a termsHash other than the held terms' is 409; another owner's approval is 404", async () => {
    const agent = await funded(100);
    const stranger = await funded(100);
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const held = await PATHS[0]!.make(agent, 40);
    expect((await approve(agent, held.body.approvalId, { termsHash: "0".repeat(64) })).status).toBe(409);
    expect((await approve(stranger, held.body.approvalId)).status).toBe(404);
    expect((await decline(stranger, held.body.approvalId)).status).toBe(404);
    expect((await server.request("GET", `/approvals/${held.body.approvalId}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.apiKey })).status).toBe(403);
    expect(await server.balance(agent)).toEqual({ available: 60, held: 40 });
    await expectLedgerOk(server);
  });

  test("a tightened policy is obeyed when an approved outflow goes out", async () => {
    const agent = await funded(100);
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const held = await PATHS[0]!.make(agent, 40);
    await setPolicy(agent, { approvalAbove: { USDC: 5 }, perTransaction: { USDC: 30 } });
    const approved = await approve(agent, held.body.approvalId);
    expect(approved.body.status).toBe("FAILED");
    expect(approved.body.reason).toStartWith("POLICY_LIMIT_EXCEEDED:");
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  });

  test("subscription charges after the first stand on the approved terms, within the caps", async () => {
    const agent = await funded(100);
    await setPolicy(agent, { approvalAbove: { USDC: 5 } });
    const held = await PATHS[5]!.make(agent, 10);
    expect(held.status).toBe(202);
    expect((await approve(agent, held.body.approvalId)).body.status).toBe("APPROVED");
    const subscription = (await server.request("GET", "/subscriptions/mine", { key: agent.apiKey })).body.data[0];
    await server.advance(32 * 86_400);
    expect((await server.request("GET", `/subscriptions/${subscription.id}`, { key: agent.apiKey })).body).toMatchObject({ status: "ACTIVE", periodsCharged: 2 });
    // A cap below the charge stops the next one: PAST_DUE with the policy's code.
    await setPolicy(agent, { perTransaction: { USDC: 5 } });
    const { nextChargeAt } = (await server.request("GET", `/subscriptions/${subscription.id}`, { key: agent.apiKey })).body;
    const now = await server.advanceClock(1);
    await server.advance(Math.ceil((Date.parse(nextChargeAt) - Date.parse(now)) / 1000) + 60);
    expect((await server.request("GET", `/subscriptions/${subscription.id}`, { key: agent.apiKey })).body).toMatchObject({ status: "PAST_DUE", periodsCharged: 2 });
    expect((await server.request("GET", `/subscriptions/${subscription.id}`, { key: agent.apiKey })).body.lastError).toStartWith("POLICY_LIMIT_EXCEEDED");
    await expectLedgerOk(server);
  });

  test("negotiations above the threshold are in the same list; the owner approves or declines them there", async () => {
    const [a, b] = [await funded(), await funded()];
    const open = async () => {
      const created = await server.request("POST", "/negotiations", { key: a.apiKey, body: { counterpartyId: b.id, subject: "big deal", offer: { amount: 4800, currency: "USDC" } } });
      await server.request("POST", `/negotiations/${created.body.id}/accept`, { key: b.apiKey });
      return created.body.id as string;
    };
    const first = await open();
    const second = await open();
    const listed = (await approvals(a)).body;
    expect(listed.pending).toBe(2);
    expect(listed.data.map((item: any) => [item.kind, item.status, item.amount, item.counterpartyId])).toEqual([
      ["NEGOTIATION", "PENDING", 4800, b.id],
      ["NEGOTIATION", "PENDING", 4800, b.id],
    ]);
    expect((await approve(a, first)).body).toMatchObject({ kind: "NEGOTIATION", status: "APPROVED" });
    expect((await server.request("GET", `/negotiations/${first}`, { key: a.apiKey })).body.status).toBe("ACCEPTED");
    expect((await decline(b, second)).body).toMatchObject({ kind: "NEGOTIATION", status: "DECLINED" });
    expect((await server.request("GET", `/negotiations/${second}`, { key: a.apiKey })).body.status).toBe("REJECTED");
    expect((await approvals(a, "?status=PENDING")).body.pagination.total).toBe(0);
    await expectLedgerOk(server);
  });
});
