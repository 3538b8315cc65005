import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { NEGOTIATION_APPROVAL_THRESHOLD: "1000" } });
});
afterAll(() => server.close());

const start = (from: Agent, body: Record<string, unknown>) => server.request("POST", "/negotiations", { key: from.apiKey, body });
const act = (agent: Agent, id: string, action: string, body?: unknown) =>
  server.request("POST", `/negotiations/${id}/${action}`, { key: agent.apiKey, body: body ?? undefined });
const pair = async () => [await server.register(), await server.register()] as const;
const kinds = async (agent: Agent) =>
  (await server.request("GET", "/messages/inbox?type=notification.financial&limit=100", { key: agent.apiKey })).body.data.map((m: { metadata: { kind: string } }) => m.metadata.kind);

describe("negotiations", () => {
  test("full path with two counters: turns pass, history grows, accept closes it", async () => {
    const [a, b] = await pair();
    const created = await start(a, { counterpartyId: b.id, subject: "GPU hours", offer: { amount: 100, currency: "USDC", hours: 10 }, expiresInHours: 2 });
    expect(created.status).toBe(201);
    const n = created.body;
    expect(n).toMatchObject({ initiatorId: a.id, counterpartyId: b.id, subject: "GPU hours", status: "OPEN", currentOffer: { amount: 100, currency: "USDC", hours: 10 }, history: [], offerBy: a.id, turn: b.id });
    expect(Date.parse(n.expiresAt) - Date.parse(n.createdAt)).toBe(2 * 3600 * 1000);
    const received = (await server.request("GET", "/messages/inbox?type=negotiation.received", { key: b.apiKey })).body.data[0];
    expect(received.metadata).toEqual({ negotiationId: n.id, initiatorId: a.id, subject: "GPU hours", offer: { amount: 100, currency: "USDC", hours: 10 } });

    const first = await act(b, n.id, "counter", { offer: { amount: 150, currency: "USDC", hours: 10 } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "OPEN", offerBy: b.id, turn: a.id, currentOffer: { amount: 150 } });
    expect(first.body.history).toEqual([{ by: b.id, offer: { amount: 150, currency: "USDC", hours: 10 }, at: expect.any(String) }]);
    await server.advance(30);
    const second = await act(a, n.id, "counter", { offer: { amount: 125, currency: "USDC", hours: 10 } });
    expect(second.status).toBe(200);
    expect(second.body.history).toHaveLength(2);
    expect(second.body.history[1].by).toBe(a.id);

    const outOfTurn = await act(a, n.id, "accept");
    expect(outOfTurn.status).toBe(409);
    expect(outOfTurn.body.error).toBe("INVALID_STATE");
    const accepted = await act(b, n.id, "accept");
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: "ACCEPTED", acceptedBy: b.id, currentOffer: { amount: 125 }, turn: null });
    expect(await kinds(a)).toEqual(expect.arrayContaining(["negotiation.countered", "negotiation.accepted"]));
    for (const action of ["counter", "accept", "reject"]) {
      expect((await act(b, n.id, action, action === "counter" ? { offer: { x: 1 } } : undefined)).status).toBe(409);
    }
    const mine = (await server.request("GET", "/negotiations/mine?status=ACCEPTED", { key: a.apiKey })).body;
    expect(mine.data.map((x: { id: string }) => x.id)).toContain(n.id);
    await expectLedgerOk(server);
  });

  test("a fourth open negotiation per pair is 429; a counter inside 30 s is 429 with Retry-After", async () => {
    const [a, b] = await pair();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await start(i % 2 ? b : a, { counterpartyId: i % 2 ? a.id : b.id, subject: `n${i}`, offer: { i } })).body.id);
    const fourth = await start(b, { counterpartyId: a.id, subject: "n4", offer: {} });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toBe("PAIR_LIMIT_EXCEEDED");
    // Another pair is unaffected.
    const c = await server.register();
    expect((await start(a, { counterpartyId: c.id, subject: "other", offer: {} })).status).toBe(201);

    await server.advance(31);
    expect((await act(b, ids[0]!, "counter", { offer: { v: 1 } })).status).toBe(200);
    const quick = await act(a, ids[1]!, "counter", { offer: { v: 2 } });
    expect(quick.status).toBe(429);
    expect(quick.body.error).toBe("PAIR_LIMIT_EXCEEDED");
    const retryAfter = Number(quick.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    await server.advance(30);
    expect((await act(a, ids[1]!, "counter", { offer: { v: 2 } })).status).toBe(200);
    // Rejecting one frees a slot.
    expect((await act(a, ids[2]!, "reject")).body.status).toBe("REJECTED");
    expect((await start(b, { counterpartyId: a.id, subject: "n5", offer: {} })).status).toBe(201);
  });

  test("an OPEN negotiation EXPIRES at expiresAt", async () => {
    const [a, b] = await pair();
    const n = (await start(a, { counterpartyId: b.id, subject: "soon", offer: {}, expiresInHours: 1 })).body;
    await server.advance(3599);
    expect((await server.request("GET", `/negotiations/${n.id}`, { key: b.apiKey })).body.status).toBe("OPEN");
    await server.advance(2);
    expect((await server.request("GET", `/negotiations/${n.id}`, { key: b.apiKey })).body.status).toBe("EXPIRED");
    expect((await act(b, n.id, "accept")).status).toBe(409);
    expect(await kinds(a)).toContain("negotiation.expired");
  });

  test("above the threshold: AWAITING_HUMAN_APPROVAL; agent key 403, owner key 200", async () => {
    const [a, b] = await pair();
    const n = (await start(a, { counterpartyId: b.id, subject: "big", offer: { amount: 950, currency: "EUR" } })).body;
    const accepted = await act(b, n.id, "accept");
    expect(accepted.body.status).toBe("AWAITING_HUMAN_APPROVAL");
    expect(await kinds(a)).toContain("negotiation.awaiting_approval");
    const byAgent = await server.request("POST", `/negotiations/${n.id}/human-approve`, { key: b.apiKey });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error).toBe("FORBIDDEN");
    expect((await server.request("POST", `/negotiations/${n.id}/human-approve`, { key: "po_forged" })).status).toBe(401);
    const stranger = await server.register();
    expect((await server.request("POST", `/negotiations/${n.id}/human-approve`, { key: stranger.ownerKey })).status).toBe(404);
    // Either party's owner may approve: here the initiator's.
    const approved = await server.request("POST", `/negotiations/${n.id}/human-approve`, { key: a.ownerKey });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "ACCEPTED", approvedBy: a.id, currentOffer: { amount: 950, currency: "EUR" } });
    expect((await server.request("POST", `/negotiations/${n.id}/human-approve`, { key: b.ownerKey })).status).toBe(409);
    // At the threshold exactly (1000 USD) no human is needed.
    const atThreshold = (await start(a, { counterpartyId: b.id, subject: "edge", offer: { amount: 1000 } })).body;
    expect((await act(b, atThreshold.id, "accept")).body.status).toBe("ACCEPTED");
  });

  test("blocked 403, unknown counterparty 404, self 400, non-party 404", async () => {
    const [a, b] = await pair();
    await server.request("POST", "/agents/me/block", { key: b.apiKey, body: { agentId: a.id } });
    const blocked = await start(a, { counterpartyId: b.id, subject: "x", offer: {} });
    expect(blocked.status).toBe(403);
    expect((await start(a, { counterpartyId: crypto.randomUUID(), subject: "x", offer: {} })).status).toBe(404);
    expect((await start(a, { counterpartyId: a.id, subject: "x", offer: {} })).status).toBe(400);
    const c = await server.register();
    const n = (await start(a, { counterpartyId: c.id, subject: "private", offer: {} })).body;
    expect((await server.request("GET", `/negotiations/${n.id}`, { key: b.apiKey })).status).toBe(404);
    for (const action of ["counter", "accept", "reject"]) {
      expect((await act(b, n.id, action, action === "counter" ? { offer: {} } : undefined)).status).toBe(404);
    }
    expect((await server.request("GET", "/negotiations/mine", { key: b.apiKey })).body.pagination.total).toBe(0);
  });

  const bad: [string, (to: string) => unknown][] = [
    ["missing offer", (to) => ({ counterpartyId: to, subject: "s" })],
    ["offer not an object", (to) => ({ counterpartyId: to, subject: "s", offer: "cheap" })],
    ["amount with too many decimals", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 1.001, currency: "USD" } })],
    ["amount as a string", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: "100" } })],
    ["unknown offer currency", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 1, currency: "DOGE" } })],
    ["expiresInHours over 720", (to) => ({ counterpartyId: to, subject: "s", offer: {}, expiresInHours: 721 })],
    ["expiresInHours zero", (to) => ({ counterpartyId: to, subject: "s", offer: {}, expiresInHours: 0 })],
    ["empty subject", (to) => ({ counterpartyId: to, subject: "", offer: {} })],
    ["counterparty not a UUID", () => ({ counterpartyId: "x", subject: "s", offer: {} })],
    ["offer too large", (to) => ({ counterpartyId: to, subject: "s", offer: { text: "x".repeat(17_000) } })],
  ];
  test.each(bad)("%s → 400 and nothing created", async (_, body) => {
    const [a, b] = await pair();
    const reply = await start(a, body(b.id) as Record<string, unknown>);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect((await server.request("GET", "/negotiations/mine", { key: a.apiKey })).body.pagination.total).toBe(0);
  });

  test("bad ids and bad counter bodies are 400", async () => {
    const [a, b] = await pair();
    const n = (await start(a, { counterpartyId: b.id, subject: "s", offer: {} })).body;
    expect((await server.request("GET", "/negotiations/not-a-uuid", { key: a.apiKey })).status).toBe(400);
    expect((await act(b, "not-a-uuid", "accept")).status).toBe(400);
    expect((await act(b, n.id, "counter", {})).status).toBe(400);
    expect((await act(b, n.id, "counter", { offer: [1] })).status).toBe(400);
    expect((await server.request("GET", "/negotiations/mine?status=DONE", { key: a.apiKey })).status).toBe(400);
  });
});
