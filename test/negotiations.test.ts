import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HOUR_MS } from "../src/time";
import { block, financialNotifications } from "./helpers/inbox";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { NEGOTIATION_APPROVAL_THRESHOLD: "1000" } });
});
afterAll(() => server.close());

const start = (from: Agent, body: Record<string, unknown>, headers?: Record<string, string>) =>
  server.request("POST", "/negotiations", { key: from.apiKey, body, headers });
const act = (agent: Agent, id: string, action: string, body?: unknown) => server.request("POST", `/negotiations/${id}/${action}`, { key: agent.apiKey, body });
const approve = (key: string | undefined, id: string) => server.request("POST", `/negotiations/${id}/human-approve`, { key });
const read = async (agent: Agent, id: string) => (await server.request("GET", `/negotiations/${id}`, { key: agent.apiKey })).body;
const pair = async () => [await server.register(), await server.register()] as const;
const kinds = async (agent: Agent) => (await financialNotifications(server, agent, "negotiation.")).map((data) => data.kind);
const expectError = (reply: { status: number; body: { error: string } }, status: number, error: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body.error).toBe(error);
};

describe("negotiations", () => {
  test("full path with two counters: turns pass, history grows, accept closes it", async () => {
    const [a, b] = await pair();
    const offer = { amount: 100, currency: "USDC", hours: 10 };
    const created = await start(a, { counterpartyId: b.id, subject: "GPU hours", offer, relatedEntityType: "service", relatedEntityId: "svc_1", expiresInHours: 2 });
    expect(created.status).toBe(201);
    const n = created.body;
    expect(n).toEqual({
      id: expect.any(String), initiatorId: a.id, counterpartyId: b.id, subject: "GPU hours", status: "OPEN", currentOffer: offer,
      offerBy: a.id, turn: b.id, history: [], relatedEntityType: "service", relatedEntityId: "svc_1", expiresAt: expect.any(String),
      acceptedBy: null, acceptedOfferHash: null, acceptedAt: null, approvedBy: null, approvedAt: null, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(Date.parse(n.expiresAt) - Date.parse(n.createdAt)).toBe(2 * HOUR_MS);
    const received = (await server.request("GET", "/messages/inbox?type=negotiation.received", { key: b.apiKey })).body.data;
    expect(received.map((m: { metadata: unknown }) => m.metadata)).toEqual([{ negotiationId: n.id, initiatorId: a.id, subject: "GPU hours", offer }]);
    expect((await server.request("GET", "/messages/inbox?type=negotiation.received", { key: a.apiKey })).body.data).toEqual([]);

    // The initiator made the current offer: accepting or countering it is not their turn.
    expectError(await act(a, n.id, "accept"), 409, "INVALID_STATE");
    expectError(await act(a, n.id, "counter", { offer: { amount: 90 } }), 409, "INVALID_STATE");

    const first = await act(b, n.id, "counter", { offer: { amount: 150, currency: "USDC", hours: 10 } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "OPEN", offerBy: b.id, turn: a.id, currentOffer: { amount: 150, currency: "USDC", hours: 10 } });
    expect(first.body.history).toEqual([{ by: b.id, offer: { amount: 150, currency: "USDC", hours: 10 }, at: first.body.updatedAt }]);
    await server.advance(30);
    const second = await act(a, n.id, "counter", { offer: { amount: 125, currency: "USDC", hours: 10 } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: "OPEN", offerBy: a.id, turn: b.id });
    expect(second.body.history.map((h: { by: string; offer: { amount: number } }) => [h.by, h.offer.amount])).toEqual([[b.id, 150], [a.id, 125]]);

    expectError(await act(a, n.id, "accept"), 409, "INVALID_STATE");
    const accepted = await act(b, n.id, "accept");
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: "ACCEPTED", acceptedBy: b.id, acceptedAt: accepted.body.updatedAt, currentOffer: { amount: 125 }, turn: null, approvedBy: null });
    expect(accepted.body.acceptedOfferHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await read(a, n.id)).toEqual(accepted.body);

    // Each notification goes to the other party only.
    expect(await kinds(a)).toEqual(["negotiation.countered", "negotiation.accepted"]);
    expect(await kinds(b)).toEqual(["negotiation.countered"]);
    const acceptedNote = (await financialNotifications(server, a, "negotiation.accepted"))[0];
    expect(acceptedNote).toEqual({ kind: "negotiation.accepted", negotiationId: n.id, status: "ACCEPTED", subject: "GPU hours", offer: { amount: 125, currency: "USDC", hours: 10 } });

    await server.advance(30);
    for (const action of ["counter", "accept", "reject"]) {
      expectError(await act(b, n.id, action, action === "counter" ? { offer: { x: 1 } } : undefined), 409, "INVALID_STATE");
    }
    expect(await read(b, n.id)).toEqual(accepted.body);

    const other = (await start(b, { counterpartyId: a.id, subject: "later", offer: {} })).body;
    const mine = (await server.request("GET", "/negotiations/mine", { key: a.apiKey })).body;
    expect(mine).toEqual({ data: [other, accepted.body], pagination: { total: 2, limit: 20, offset: 0, hasMore: false, nextAfter: null } });
    const filtered = (await server.request("GET", "/negotiations/mine?status=ACCEPTED&limit=1", { key: b.apiKey })).body;
    expect(filtered).toEqual({ data: [accepted.body], pagination: { total: 1, limit: 1, offset: 0, hasMore: false, nextAfter: null } });
    const paged = (await server.request("GET", "/negotiations/mine?limit=1&offset=1", { key: b.apiKey })).body;
    expect(paged).toEqual({ data: [accepted.body], pagination: { total: 2, limit: 1, offset: 1, hasMore: false, nextAfter: null } });
    for (const agent of [a, b]) expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    await expectLedgerOk(server);
  });

  test("Idempotency-Key on create replays the same negotiation; another body is 409", async () => {
    const [a, b] = await pair();
    const body = { counterpartyId: b.id, subject: "once", offer: { amount: 5 } };
    const headers = { "idempotency-key": "neg-1" };
    const first = await start(a, body, headers);
    const again = await start(a, body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expectError(await start(a, { ...body, subject: "twice" }, headers), 409, "IDEMPOTENCY_KEY_REUSED");
    expect((await server.request("GET", "/negotiations/mine", { key: a.apiKey })).body.pagination.total).toBe(1);
    await expectLedgerOk(server);
  });

  test("a fourth live negotiation per pair is 429; a counter inside 30 s is 429 with Retry-After", async () => {
    const [a, b] = await pair();
    const c = await server.register();
    const n0 = (await start(a, { counterpartyId: b.id, subject: "n0", offer: { amount: 5000 } })).body;
    const n1 = (await start(b, { counterpartyId: a.id, subject: "n1", offer: { i: 1 } })).body;
    const n2 = (await start(a, { counterpartyId: b.id, subject: "n2", offer: { i: 2 } })).body;
    const fourth = await start(b, { counterpartyId: a.id, subject: "n3", offer: {} });
    expectError(fourth, 429, "PAIR_LIMIT_EXCEEDED");
    expect(fourth.headers.get("retry-after")).toBeNull();
    // AWAITING_HUMAN_APPROVAL still counts.
    expect((await act(b, n0.id, "accept")).body.status).toBe("AWAITING_HUMAN_APPROVAL");
    expectError(await start(a, { counterpartyId: b.id, subject: "n3", offer: {} }), 429, "PAIR_LIMIT_EXCEEDED");
    // Another pair is unaffected.
    const ac = (await start(a, { counterpartyId: c.id, subject: "other pair", offer: {} })).body;

    expect((await act(a, n1.id, "counter", { offer: { v: 1 } })).status).toBe(200);
    const quick = await act(b, n2.id, "counter", { offer: { v: 2 } });
    expectError(quick, 429, "PAIR_LIMIT_EXCEEDED");
    expect(quick.headers.get("retry-after")).toBe("30");
    // The cooldown is per pair: a counter between a and c goes through.
    expect((await act(c, ac.id, "counter", { offer: { v: 3 } })).status).toBe(200);
    await server.advance(29);
    const stillEarly = await act(b, n2.id, "counter", { offer: { v: 2 } });
    expectError(stillEarly, 429, "PAIR_LIMIT_EXCEEDED");
    expect(stillEarly.headers.get("retry-after")).toBe("1");
    expect((await read(b, n2.id)).history).toEqual([]);
    await server.advance(1);
    expect((await act(b, n2.id, "counter", { offer: { v: 2 } })).body.history).toHaveLength(1);

    // Rejecting frees a slot (either party may reject, whoever's turn it is).
    expect((await act(a, n1.id, "reject")).body.status).toBe("REJECTED");
    expect(await kinds(b)).toEqual(["negotiation.awaiting_approval", "negotiation.countered", "negotiation.rejected"]);
    expect((await start(b, { counterpartyId: a.id, subject: "n4", offer: {} })).status).toBe(201);
    expectError(await start(b, { counterpartyId: a.id, subject: "n5", offer: {} }), 429, "PAIR_LIMIT_EXCEEDED");
    await expectLedgerOk(server);
  });

  test("an OPEN negotiation EXPIRES at expiresAt through the job; then it is closed and frees its slot", async () => {
    const [a, b] = await pair();
    const n = (await start(a, { counterpartyId: b.id, subject: "soon", offer: {}, expiresInHours: 1 })).body;
    const long = (await start(a, { counterpartyId: b.id, subject: "default", offer: {} })).body;
    expect(Date.parse(long.expiresAt) - Date.parse(long.createdAt)).toBe(24 * HOUR_MS);
    await start(a, { counterpartyId: b.id, subject: "third", offer: {} });
    await server.advance(3599);
    expect((await read(b, n.id)).status).toBe("OPEN");
    await server.advance(2);
    // The job ran during the advance: both parties were told before anyone read the negotiation.
    expect(await kinds(a)).toEqual(["negotiation.expired"]);
    expect(await kinds(b)).toEqual(["negotiation.expired"]);
    expect((await financialNotifications(server, b, "negotiation.expired"))[0]).toMatchObject({ negotiationId: n.id, status: "EXPIRED" });
    expect(await read(b, n.id)).toMatchObject({ status: "EXPIRED", turn: null });
    for (const action of ["counter", "accept", "reject"]) {
      expectError(await act(b, n.id, action, action === "counter" ? { offer: {} } : undefined), 409, "INVALID_STATE");
    }
    expect((await read(a, long.id)).status).toBe("OPEN");
    expect((await start(b, { counterpartyId: a.id, subject: "slot freed", offer: {} })).status).toBe(201);
    expect(await kinds(a)).toEqual(["negotiation.expired"]);
    await expectLedgerOk(server);
  });

  test("above the threshold: AWAITING_HUMAN_APPROVAL; agent key 403, owner key 200", async () => {
    const [a, b] = await pair();
    const stranger = await server.register();
    // 950 EUR × 1.08 = 1026 USD > 1000.
    const n = (await start(a, { counterpartyId: b.id, subject: "big", offer: { amount: 950, currency: "EUR", item: "cluster" }, expiresInHours: 1 })).body;
    expectError(await approve(a.ownerKey, n.id), 409, "INVALID_STATE");
    const accepted = await act(b, n.id, "accept");
    expect(accepted.body).toMatchObject({ status: "AWAITING_HUMAN_APPROVAL", acceptedBy: b.id, turn: null, approvedBy: null });
    expect(await kinds(a)).toEqual(["negotiation.awaiting_approval"]);
    expect(await kinds(b)).toEqual(["negotiation.awaiting_approval"]);
    expectError(await act(a, n.id, "counter", { offer: { amount: 1 } }), 409, "INVALID_STATE");
    expectError(await act(a, n.id, "accept"), 409, "INVALID_STATE");

    expectError(await approve(b.apiKey, n.id), 403, "FORBIDDEN");
    expectError(await approve(a.apiKey, n.id), 403, "FORBIDDEN");
    expectError(await approve(undefined, n.id), 401, "UNAUTHORIZED");
    expectError(await approve("po_forged", n.id), 401, "UNAUTHORIZED");
    expectError(await approve(stranger.ownerKey, n.id), 404, "NOT_FOUND");
    // Waiting for a human does not expire.
    await server.advance(2 * 3600);
    expect((await read(a, n.id)).status).toBe("AWAITING_HUMAN_APPROVAL");

    // Either party's owner may approve: here the initiator's, for exactly the accepted offer.
    const approved = await approve(a.ownerKey, n.id);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: "ACCEPTED", acceptedBy: b.id, approvedBy: a.id, approvedAt: approved.body.updatedAt,
      acceptedOfferHash: accepted.body.acceptedOfferHash, currentOffer: { amount: 950, currency: "EUR", item: "cluster" },
    });
    expect(await kinds(a)).toEqual(["negotiation.awaiting_approval", "negotiation.approved"]);
    expect(await kinds(b)).toEqual(["negotiation.awaiting_approval", "negotiation.approved"]);
    expectError(await approve(b.ownerKey, n.id), 409, "INVALID_STATE");

    // Exact USD values: 1000 USDC is at the threshold (no human); 0.01052632 BTC × 95000 = 1000.0004 is above.
    const atThreshold = (await start(a, { counterpartyId: b.id, subject: "edge", offer: { amount: 1000 } })).body;
    expect((await act(b, atThreshold.id, "accept")).body.status).toBe("ACCEPTED");
    const btc = (await start(a, { counterpartyId: b.id, subject: "btc", offer: { amount: 0.01052632, currency: "BTC" } })).body;
    expect((await act(b, btc.id, "accept")).body.status).toBe("AWAITING_HUMAN_APPROVAL");
    // An owner declines by having either agent reject; then nothing is left to approve.
    expect((await act(a, btc.id, "reject")).body.status).toBe("REJECTED");
    expectError(await approve(b.ownerKey, btc.id), 409, "INVALID_STATE");
    for (const agent of [a, b]) expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    await expectLedgerOk(server);
  });

  test("blocked 403, unknown counterparty 404, self 400, non-party 404", async () => {
    const [a, b] = await pair();
    // b starts a negotiation with a, then blocks a: a can no longer counter or accept toward b, only reject.
    const n = (await start(b, { counterpartyId: a.id, subject: "before block", offer: {} })).body;
    await block(server, b, a);
    expectError(await start(a, { counterpartyId: b.id, subject: "x", offer: {} }), 403, "FORBIDDEN");
    expectError(await act(a, n.id, "counter", { offer: {} }), 403, "FORBIDDEN");
    expectError(await act(a, n.id, "accept"), 403, "FORBIDDEN");
    expect((await read(a, n.id)).status).toBe("OPEN");
    expect((await act(a, n.id, "reject")).body.status).toBe("REJECTED");
    // Blocking is one-way: b may still start one with a.
    expect((await start(b, { counterpartyId: a.id, subject: "b to a", offer: {} })).status).toBe(201);

    expectError(await start(a, { counterpartyId: crypto.randomUUID(), subject: "x", offer: {} }), 404, "NOT_FOUND");
    expectError(await start(a, { counterpartyId: a.id, subject: "x", offer: {} }), 400, "VALIDATION_ERROR");

    const c = await server.register();
    const d = await server.register();
    const secret = (await start(c, { counterpartyId: d.id, subject: "private", offer: {} })).body;
    expectError(await server.request("GET", `/negotiations/${secret.id}`, { key: a.apiKey }), 404, "NOT_FOUND");
    expectError(await server.request("GET", `/negotiations/${crypto.randomUUID()}`, { key: a.apiKey }), 404, "NOT_FOUND");
    for (const action of ["counter", "accept", "reject"]) {
      expectError(await act(a, secret.id, action, action === "counter" ? { offer: {} } : undefined), 404, "NOT_FOUND");
    }
    expectError(await approve(a.ownerKey, secret.id), 404, "NOT_FOUND");
    expect((await read(c, secret.id)).status).toBe("OPEN");
    expect((await server.request("GET", "/negotiations/mine", { key: a.apiKey })).body.data.map((x: { id: string }) => x.id)).not.toContain(secret.id);
    await expectLedgerOk(server);
  });

  const deep = (levels: number): unknown => (levels === 0 ? 1 : [deep(levels - 1)]);
  const bad: [string, (to: string) => unknown][] = [
    ["missing offer", (to) => ({ counterpartyId: to, subject: "s" })],
    ["missing subject", (to) => ({ counterpartyId: to, offer: {} })],
    ["missing counterpartyId", () => ({ subject: "s", offer: {} })],
    ["an unknown field", (to) => ({ counterpartyId: to, subject: "s", offer: {}, price: 5 })],
    ["offer not an object", (to) => ({ counterpartyId: to, subject: "s", offer: "cheap" })],
    ["offer an array", (to) => ({ counterpartyId: to, subject: "s", offer: [1] })],
    ["offer with 51 keys", (to) => ({ counterpartyId: to, subject: "s", offer: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) })],
    ["offer too large", (to) => ({ counterpartyId: to, subject: "s", offer: { text: "x".repeat(17_000) } })],
    ["offer nested too deep", (to) => ({ counterpartyId: to, subject: "s", offer: { x: deep(10) } })],
    ["amount with too many decimals", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 1.001, currency: "USD" } })],
    ["amount with 7 decimals in default USDC", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 0.0000001 } })],
    ["amount as a string", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: "100" } })],
    ["amount zero", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 0 } })],
    ["amount negative", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: -5 } })],
    ["amount above 1e9", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 1e10 } })],
    ["amount null", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: null } })],
    ["unknown offer currency", (to) => ({ counterpartyId: to, subject: "s", offer: { amount: 1, currency: "DOGE" } })],
    ["expiresInHours over 720", (to) => ({ counterpartyId: to, subject: "s", offer: {}, expiresInHours: 721 })],
    ["expiresInHours zero", (to) => ({ counterpartyId: to, subject: "s", offer: {}, expiresInHours: 0 })],
    ["expiresInHours as a string", (to) => ({ counterpartyId: to, subject: "s", offer: {}, expiresInHours: "30" })],
    ["empty subject", (to) => ({ counterpartyId: to, subject: "", offer: {} })],
    ["subject over 200", (to) => ({ counterpartyId: to, subject: "s".repeat(201), offer: {} })],
    ["relatedEntityId over 100", (to) => ({ counterpartyId: to, subject: "s", offer: {}, relatedEntityId: "x".repeat(101) })],
    ["counterparty not a UUID", () => ({ counterpartyId: "x", subject: "s", offer: {} })],
  ];
  test.each(bad)("create with %s → 400 and nothing created", async (_, body) => {
    const [a, b] = await pair();
    expectError(await start(a, body(b.id) as Record<string, unknown>), 400, "VALIDATION_ERROR");
    expect((await server.request("GET", "/negotiations/mine", { key: a.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/messages/inbox", { key: b.apiKey })).body.pagination.total).toBe(0);
  });

  test("the deepest allowed offer (10 levels) is accepted", async () => {
    const [a, b] = await pair();
    expect((await start(a, { counterpartyId: b.id, subject: "s", offer: { x: deep(9) } })).status).toBe(201);
  });

  test("bad ids, bodies and queries on the other routes are 400 and change nothing", async () => {
    const [a, b] = await pair();
    const n = (await start(a, { counterpartyId: b.id, subject: "s", offer: { amount: 1 } })).body;
    const badCounters = [{}, { offer: [1] }, { offer: "x" }, { offer: {}, note: "hi" }, { offer: { amount: 1.0000001 } }, { offer: { amount: 1, currency: "XYZ" } }, { offer: { x: deep(10) } }];
    for (const body of badCounters) expectError(await act(b, n.id, "counter", body), 400, "VALIDATION_ERROR");
    for (const action of ["counter", "accept", "reject"]) {
      expectError(await act(b, "not-a-uuid", action, action === "counter" ? { offer: {} } : undefined), 400, "VALIDATION_ERROR");
    }
    expectError(await approve(b.ownerKey, "not-a-uuid"), 400, "VALIDATION_ERROR");
    expectError(await server.request("GET", "/negotiations/not-a-uuid", { key: a.apiKey }), 400, "VALIDATION_ERROR");
    for (const query of ["status=DONE", "limit=0", "limit=101", "offset=-1", "limit=abc", "colour=red"]) {
      expectError(await server.request("GET", `/negotiations/mine?${query}`, { key: a.apiKey }), 400, "VALIDATION_ERROR");
    }
    for (const [method, path] of [["POST", "/negotiations"], ["GET", "/negotiations/mine"], ["GET", `/negotiations/${n.id}`], ["POST", `/negotiations/${n.id}/accept`]]) {
      expectError(await server.request(method!, path!, {}), 401, "UNAUTHORIZED");
    }
    expect(await read(a, n.id)).toEqual(n);
    // Nothing started a cooldown: a valid counter goes through at once.
    expect((await act(b, n.id, "counter", { offer: { amount: 2 } })).status).toBe(200);
    await expectLedgerOk(server);
  });
});
