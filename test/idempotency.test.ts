// Idempotency-Key after its 24 h: between the moment a key expires and the purge job that drops it,
// the stored row still exists. A request reusing the key then is a new request: it runs, and its answer
// replaces the old one (before, the insert collided with the old row and answered 500).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { directDatabase } from "./helpers/database";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long before a key expires the test clock is left; the key then expires in real time. */
const LEAD_MS = 800;
/** Waiting for the scheduler's tick takes up to 5 s of each test. */
const TIMEOUT_MS = 20_000;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function payer(fund: number): Promise<[Agent, Agent]> {
  const from = await server.register();
  const to = await server.register();
  await server.deposit(from.id, fund);
  return [from, to];
}

const send = (from: Agent, body: Record<string, unknown>, key: string) =>
  server.request("POST", "/payments/send", { key: from.apiKey, body, headers: { "idempotency-key": key } });

/**
 * Lets keys stored at `storedAt` expire without any job running after that: the test clock is moved
 * to just before their 24 h end (so the purge run by /admin/clock/advance keeps them), right after a
 * tick of the 5 s scheduler, and the expiry itself then comes in real time, well before the next tick.
 */
async function expireWithoutPurge(storedAt: string): Promise<void> {
  while (Date.now() % 5000 < 200 || Date.now() % 5000 > 600) await Bun.sleep(50);
  const asked = Date.now();
  const now = Date.parse(await server.advanceClock(0)) + (Date.now() - asked);
  await server.advanceClock((Date.parse(storedAt) + DAY_MS - LEAD_MS - now) / 1000);
  await Bun.sleep(LEAD_MS + 200);
}

describe("an Idempotency-Key past its 24 h, before the purge job", () => {
  test("is a new request: it runs again and its answer is the one kept, with the same body or another", async () => {
    const [from, to] = await payer(10);
    const body = { toAgentId: to.id, amount: 1, currency: "USDC" };
    const first = await send(from, body, "same-body");
    const other = await send(from, body, "other-body");
    expect([first.status, other.status]).toEqual([201, 201]);
    await expireWithoutPurge(first.body.createdAt);

    const again = await send(from, body, "same-body");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    const changed = await send(from, { ...body, amount: 2 }, "other-body");
    expect(changed.status).toBe(201);
    expect(changed.body.amount).toBe(2);
    expect(await server.balance(from)).toEqual({ available: 5, held: 0 });

    // The new answers are the stored ones now.
    const replay = await send(from, body, "same-body");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(again.body);
    expect((await send(from, body, "other-body")).status).toBe(409);
    expect(await server.balance(from)).toEqual({ available: 5, held: 0 });
    await expectLedgerOk(server);
  }, TIMEOUT_MS);

  test("ten requests at once with one expired key run it once; the others replay that answer", async () => {
    const [from, to] = await payer(10);
    const body = { toAgentId: to.id, amount: 1, currency: "USDC" };
    const first = await send(from, body, "burst");
    expect(first.status).toBe(201);
    await expireWithoutPurge(first.body.createdAt);

    const replies = await Promise.all(Array.from({ length: 10 }, () => send(from, body, "burst")));
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(201));
    const ids = new Set(replies.map((reply) => reply.body.id));
    expect(ids.size).toBe(1);
    expect(ids.has(first.body.id)).toBe(false);
    expect(replies.filter((reply) => reply.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(await server.balance(from)).toEqual({ available: 8, held: 0 });
    await expectLedgerOk(server);
  }, TIMEOUT_MS);
});

describe("an Idempotency-Key belongs to the key that sent it", () => {
  /** A restricted key of `agent` that may pay only `to`. */
  async function payingOnly(agent: Agent, to: Agent): Promise<{ id: string; apiKey: string }> {
    const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: `pays ${to.id}`, scopes: ["pay"], allowlist: [to.id] } });
    expect(made.status).toBe(201);
    return made.body;
  }
  const sendWith = (apiKey: string, body: Record<string, unknown>, key: string) => server.request("POST", "/payments/send", { key: apiKey, body, headers: { "idempotency-key": key } });

  test("another key of the agent with the same Idempotency-Key makes its own request, checked against its own limits; none replays another's", async () => {
    const [agent, x] = await payer(20);
    const y = await server.register();
    const [a, b] = [await payingOnly(agent, x), await payingOnly(agent, y)];
    const toX = { toAgentId: x.id, amount: 1, currency: "USDC" };

    const byA = await sendWith(a.apiKey, toX, "K");
    expect(byA.status).toBe(201);
    expect(byA.body.keyId).toBe(a.id);
    // B may not pay X: refused by its own allowlist, not A's answer replayed (with A's id in it).
    const byB = await sendWith(b.apiKey, toX, "K");
    expect({ status: byB.status, error: byB.body.error, replayed: byB.headers.get("idempotent-replayed") }).toEqual({ status: 403, error: "KEY_SCOPE_DENIED", replayed: null });
    // The agent's own key: its own new payment.
    const byAgent = await sendWith(agent.apiKey, toX, "K");
    expect({ status: byAgent.status, replayed: byAgent.headers.get("idempotent-replayed"), keyId: byAgent.body.keyId }).toEqual({ status: 201, replayed: null, keyId: null });
    expect(byAgent.body.id).not.toBe(byA.body.id);
    // B's own request with K, to the agent it may pay, is B's.
    const toY = { toAgentId: y.id, amount: 2, currency: "USDC" };
    const byBToY = await sendWith(b.apiKey, toY, "K");
    expect({ status: byBToY.status, keyId: byBToY.body.keyId }).toEqual({ status: 201, keyId: b.id });

    // Each key's retry replays its own answer, and only its own.
    for (const [apiKey, body, first] of [[a.apiKey, toX, byA], [agent.apiKey, toX, byAgent], [b.apiKey, toY, byBToY]] as const) {
      const retry = await sendWith(apiKey, body, "K");
      expect({ status: retry.status, replayed: retry.headers.get("idempotent-replayed"), body: retry.body }).toEqual({ status: 201, replayed: "true", body: first.body });
    }
    expect((await sendWith(a.apiKey, { ...toX, amount: 3 }, "K")).status).toBe(409);
    expect(await server.balance(agent)).toEqual({ available: 16, held: 0 });
    await expectLedgerOk(server);
  });

  test("a key stored before keys were told apart (acting key 'any') is still replayed to any key of the agent", async () => {
    const [agent, x] = await payer(10);
    const a = await payingOnly(agent, x);
    const body = { toAgentId: x.id, amount: 1, currency: "USDC" };
    const first = await sendWith(a.apiKey, body, "from-before");
    expect(first.status).toBe(201);
    // As the migration leaves a row stored before it.
    const db = directDatabase(server);
    try {
      await db.execute(`UPDATE idempotency_keys SET acting_key = 'any' WHERE agent_id = '${agent.id}' AND key = 'from-before'`);
    } finally {
      db.close();
    }
    for (const apiKey of [a.apiKey, agent.apiKey]) {
      const retry = await sendWith(apiKey, body, "from-before");
      expect({ replayed: retry.headers.get("idempotent-replayed"), id: retry.body.id }).toEqual({ replayed: "true", id: first.body.id });
    }
    expect(await server.balance(agent)).toEqual({ available: 9, held: 0 });
    await expectLedgerOk(server);
  });
});
