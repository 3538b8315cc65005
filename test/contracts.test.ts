import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { block, financialNotifications } from "./helpers/inbox";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const DAY = 86_400;

async function agent(fund = 0): Promise<Agent> {
  const created = await server.register();
  if (fund > 0) await server.deposit(created.id, fund);
  return created;
}

const conditions = [
  { id: "deliver", type: "DELIVERY", description: "Deliver the dataset", params: { rows: 1000, format: "csv" } },
  { id: "review", type: "APPROVAL", description: "Pass review", params: {} },
];
const contractBody = (counterpartyId: string, overrides: Record<string, unknown> = {}) => ({
  counterpartyId, title: "Dataset", description: "Labelled rows", escrowAmount: 50, currency: "USDC", conditions, ...overrides,
});
const create = (creator: Agent, body: unknown) => server.request("POST", "/contracts", { key: creator.apiKey, body });
const sign = (caller: Agent, id: string) => server.request("POST", `/contracts/${id}/sign`, { key: caller.apiKey });
const fulfill = (caller: Agent, id: string, conditionId: unknown) => server.request("POST", `/contracts/${id}/fulfill`, { key: caller.apiKey, body: { conditionId } });
const cancel = (caller: Agent, id: string) => server.request("POST", `/contracts/${id}/cancel`, { key: caller.apiKey });
const read = (caller: Agent, id: string) => server.request("GET", `/contracts/${id}`, { key: caller.apiKey });
const reputation = async (subject: Agent) => (await server.request("GET", `/agents/${subject.id}/reputation`)).body;
const kinds = async (subject: Agent) => (await financialNotifications(server, subject, "contract.")).map((data) => data.kind);

async function expectBalances(expected: [Agent, { available: number; held: number }][]): Promise<void> {
  for (const [who, balance] of expected) expect(await server.balance(who)).toEqual(balance);
}

async function expectStatus(reply: { status: number; body: any }, status: number, error: string): Promise<void> {
  expect(reply.status).toBe(status);
  expect(reply.body.error).toBe(error);
}

/** A contract between a creator funded with 200 and an unfunded counterparty, signed when asked. */
async function contract(options: { signed?: boolean; overrides?: Record<string, unknown> } = {}) {
  const creator = await agent(200);
  const counterparty = await agent();
  const created = await create(creator, contractBody(counterparty.id, options.overrides));
  expect(created.status).toBe(201);
  if (options.signed) expect((await sign(counterparty, created.body.id)).status).toBe(200);
  return { creator, counterparty, id: created.body.id as string, created: created.body };
}

describe("contract lifecycle", () => {
  test("create → sign → confirm every condition: escrow to the counterparty, +3", async () => {
    const { creator, counterparty, id, created } = await contract();
    const stranger = await agent(10);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({
      creatorId: creator.id, counterpartyId: counterparty.id, title: "Dataset", description: "Labelled rows", escrowAmount: 50,
      currency: "USDC", deadlineDays: 30, status: "PENDING_SIGNATURE", signedAt: null, closedAt: null,
    });
    expect(created.conditions).toEqual([
      { ...conditions[0], fulfilled: false, fulfilledAt: null },
      { ...conditions[1], fulfilled: false, fulfilledAt: null },
    ]);
    expect(Date.parse(created.deadlineAt) - Date.parse(created.createdAt)).toBe(30 * DAY * 1000);
    await expectBalances([[creator, { available: 150, held: 50 }], [counterparty, { available: 0, held: 0 }]]);
    expect(await kinds(counterparty)).toEqual(["contract.proposed"]);

    // PENDING_SIGNATURE: the counterparty reads it, a stranger does not; illegal actions.
    expect((await read(counterparty, id)).body.status).toBe("PENDING_SIGNATURE");
    await expectStatus(await read(stranger, id), 404, "NOT_FOUND");
    await expectStatus(await fulfill(creator, id, "deliver"), 409, "INVALID_STATE");
    await expectStatus(await sign(creator, id), 403, "FORBIDDEN");
    await expectStatus(await cancel(counterparty, id), 403, "FORBIDDEN");
    for (const reply of [await sign(stranger, id), await fulfill(stranger, id, "deliver"), await cancel(stranger, id)]) await expectStatus(reply, 404, "NOT_FOUND");

    const signed = await sign(counterparty, id);
    expect(signed.status).toBe(200);
    expect(signed.body.status).toBe("ACTIVE");
    expect(signed.body.signedAt).not.toBeNull();
    await expectBalances([[creator, { available: 150, held: 50 }], [counterparty, { available: 0, held: 0 }]]);
    expect(await kinds(creator)).toEqual(["contract.signed"]);
    expect(await kinds(counterparty)).toEqual(["contract.proposed", "contract.signed"]);

    // ACTIVE: illegal actions.
    await expectStatus(await sign(counterparty, id), 409, "INVALID_STATE");
    await expectStatus(await cancel(creator, id), 409, "INVALID_STATE");
    await expectStatus(await fulfill(counterparty, id, "deliver"), 403, "FORBIDDEN");
    await expectStatus(await fulfill(creator, id, "nope"), 404, "NOT_FOUND");
    await expectStatus(await read(stranger, id), 404, "NOT_FOUND");

    const first = await fulfill(creator, id, "deliver");
    expect(first.status).toBe(200);
    expect(first.body.status).toBe("ACTIVE");
    expect(first.body.conditions.map((condition: { fulfilled: boolean }) => condition.fulfilled)).toEqual([true, false]);
    expect(first.body.conditions[0].fulfilledAt).not.toBeNull();
    await expectBalances([[creator, { available: 150, held: 50 }], [counterparty, { available: 0, held: 0 }]]);
    await expectStatus(await fulfill(creator, id, "deliver"), 409, "INVALID_STATE");

    const done = await fulfill(creator, id, "review");
    expect(done.body.status).toBe("FULFILLED");
    expect(done.body.closedAt).not.toBeNull();
    await expectBalances([[creator, { available: 150, held: 0 }], [counterparty, { available: 50, held: 0 }]]);
    const score = await reputation(counterparty);
    expect(score.score).toBe(3);
    expect(score.events[0]).toMatchObject({ reason: "CONTRACT_FULFILLED", change: 3, reference: { type: "contract", id } });
    expect((await reputation(creator)).score).toBe(0);
    for (const party of [creator, counterparty]) {
      expect((await financialNotifications(server, party, "contract.fulfilled"))).toEqual([
        { kind: "contract.fulfilled", contractId: id, creatorId: creator.id, counterpartyId: counterparty.id, escrowAmount: 50, currency: "USDC" },
      ]);
    }

    // FULFILLED: every action is 409.
    await expectStatus(await fulfill(creator, id, "review"), 409, "INVALID_STATE");
    await expectStatus(await sign(counterparty, id), 409, "INVALID_STATE");
    await expectStatus(await cancel(creator, id), 409, "INVALID_STATE");
    expect((await read(counterparty, id)).body.status).toBe("FULFILLED");
    await expectBalances([[creator, { available: 150, held: 0 }], [counterparty, { available: 50, held: 0 }]]);
    await expectLedgerOk(server);
  });

  test("the creator cancels an unsigned contract: escrow back; then every action is 409", async () => {
    const { creator, counterparty, id } = await contract();
    const cancelled = await cancel(creator, id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "CANCELLED" });
    await expectBalances([[creator, { available: 200, held: 0 }], [counterparty, { available: 0, held: 0 }]]);
    expect(await kinds(creator)).toEqual(["contract.cancelled"]);
    expect(await kinds(counterparty)).toEqual(["contract.proposed", "contract.cancelled"]);
    await expectStatus(await sign(counterparty, id), 409, "INVALID_STATE");
    await expectStatus(await cancel(creator, id), 409, "INVALID_STATE");
    await expectStatus(await fulfill(creator, id, "deliver"), 409, "INVALID_STATE");
    await expectLedgerOk(server);
  });
});

describe("contract deadline", () => {
  test("unsigned at the deadline → EXPIRED, escrow back to the creator", async () => {
    const { creator, counterparty, id, created } = await contract({ overrides: { deadlineDays: 1 } });
    expect(Date.parse(created.deadlineAt) - Date.parse(created.createdAt)).toBe(DAY * 1000);
    await server.advance(DAY - 1);
    expect((await read(creator, id)).body.status).toBe("PENDING_SIGNATURE");
    await expectBalances([[creator, { available: 150, held: 50 }]]);

    await server.advance(1);
    const expired = await read(counterparty, id);
    expect(expired.body).toMatchObject({ status: "EXPIRED", closedAt: created.deadlineAt });
    await expectBalances([[creator, { available: 200, held: 0 }], [counterparty, { available: 0, held: 0 }]]);
    expect(await kinds(creator)).toEqual(["contract.expired"]);
    expect(await kinds(counterparty)).toEqual(["contract.proposed", "contract.expired"]);
    await expectStatus(await sign(counterparty, id), 409, "INVALID_STATE");
    await expectStatus(await cancel(creator, id), 409, "INVALID_STATE");
    expect((await reputation(counterparty)).score).toBe(0);
    await expectLedgerOk(server);
  });

  test("signed with an open condition at the deadline → BREACHED: escrow back to the creator, −5 to the counterparty", async () => {
    const { creator, counterparty, id } = await contract({ signed: true, overrides: { deadlineDays: 2 } });
    await fulfill(creator, id, "deliver");
    await server.advance(2 * DAY - 1);
    expect((await read(creator, id)).body.status).toBe("ACTIVE");
    await expectBalances([[creator, { available: 150, held: 50 }]]);

    await server.advance(1);
    expect((await read(creator, id)).body.status).toBe("BREACHED");
    await expectBalances([[creator, { available: 200, held: 0 }], [counterparty, { available: 0, held: 0 }]]);
    const score = await reputation(counterparty);
    expect(score).toMatchObject({ score: -5, tier: "UNRATED" });
    expect(score.events[0]).toMatchObject({ reason: "CONTRACT_BREACHED", change: -5, reference: { type: "contract", id } });
    expect((await reputation(creator)).score).toBe(0);
    expect(await kinds(creator)).toEqual(["contract.signed", "contract.breached"]);
    expect(await kinds(counterparty)).toEqual(["contract.proposed", "contract.signed", "contract.breached"]);
    await expectStatus(await fulfill(creator, id, "review"), 409, "INVALID_STATE");
    await expectStatus(await sign(counterparty, id), 409, "INVALID_STATE");
    await expectStatus(await cancel(creator, id), 409, "INVALID_STATE");
    await expectLedgerOk(server);
  });

  test("a contract fulfilled before its deadline is not breached later", async () => {
    const { creator, counterparty, id } = await contract({ signed: true, overrides: { deadlineDays: 1, conditions: [conditions[0]] } });
    expect((await fulfill(creator, id, "deliver")).body.status).toBe("FULFILLED");
    await server.advance(2 * DAY);
    expect((await read(creator, id)).body.status).toBe("FULFILLED");
    await expectBalances([[creator, { available: 150, held: 0 }], [counterparty, { available: 50, held: 0 }]]);
    expect((await reputation(counterparty)).score).toBe(3);
    await expectLedgerOk(server);
  });
});

describe("contract rules", () => {
  test("self 400, unknown counterparty 404, blocked 403, insufficient 400, tier 403: nothing held", async () => {
    const creator = await agent(150);
    const counterparty = await agent();
    await expectStatus(await create(creator, contractBody(creator.id)), 400, "VALIDATION_ERROR");
    await expectStatus(await create(creator, contractBody(crypto.randomUUID())), 404, "NOT_FOUND");
    await expectStatus(await create(creator, contractBody(counterparty.id, { escrowAmount: 100.01 })), 403, "TIER_LIMIT_EXCEEDED");
    const poor = await agent(20);
    await expectStatus(await create(poor, contractBody(counterparty.id, { escrowAmount: 20.01 })), 400, "INSUFFICIENT_BALANCE");
    await block(server, counterparty, creator);
    await expectStatus(await create(creator, contractBody(counterparty.id)), 403, "FORBIDDEN");
    await expectBalances([[creator, { available: 150, held: 0 }], [poor, { available: 20, held: 0 }], [counterparty, { available: 0, held: 0 }]]);
    for (const who of [creator, poor, counterparty]) {
      expect((await server.request("GET", "/contracts/mine", { key: who.apiKey })).body.pagination.total).toBe(0);
    }
    await expectLedgerOk(server);
  });

  test("a counterparty the creator has blocked cannot sign (403)", async () => {
    const { creator, counterparty, id } = await contract();
    await block(server, creator, counterparty);
    await expectStatus(await sign(counterparty, id), 403, "FORBIDDEN");
    expect((await read(creator, id)).body.status).toBe("PENDING_SIGNATURE");
    await expectBalances([[creator, { available: 150, held: 50 }]]);
    await expectLedgerOk(server);
  });

  test("GET /contracts/mine lists both roles in the envelope, newest first", async () => {
    const creator = await agent(200);
    const counterparty = await agent(200);
    const first = (await create(creator, contractBody(counterparty.id, { escrowAmount: 1 }))).body;
    const second = (await create(counterparty, contractBody(creator.id, { escrowAmount: 2 }))).body;
    for (const who of [creator, counterparty]) {
      const mine = (await server.request("GET", "/contracts/mine", { key: who.apiKey })).body;
      expect(mine.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false, nextAfter: null });
      expect(mine.data.map((row: { id: string }) => row.id)).toEqual([second.id, first.id]);
    }
    const paged = (await server.request("GET", "/contracts/mine?limit=1&offset=0", { key: creator.apiKey })).body;
    expect(paged.data.map((row: { id: string }) => row.id)).toEqual([second.id]);
    expect(paged.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true, nextAfter: expect.any(String) });
    await expectBalances([[creator, { available: 199, held: 1 }], [counterparty, { available: 198, held: 2 }]]);
    await expectLedgerOk(server);
  });
});

describe("bad input", () => {
  const condition = conditions[0]!;
  const badBodies: [string, (to: string) => Record<string, unknown>][] = [
    ["missing counterparty", (to) => { const { counterpartyId: _, ...rest } = contractBody(to); return rest; }],
    ["counterparty not a UUID", (to) => contractBody(to, { counterpartyId: "bob" })],
    ["empty title", (to) => contractBody(to, { title: "" })],
    ["title too long", (to) => contractBody(to, { title: "x".repeat(201) })],
    ["zero escrow", (to) => contractBody(to, { escrowAmount: 0 })],
    ["escrow with too many decimals", (to) => contractBody(to, { escrowAmount: 1.0000001 })],
    ["escrow as a string", (to) => contractBody(to, { escrowAmount: "5" })],
    ["unknown currency", (to) => contractBody(to, { currency: "DOGE" })],
    ["no conditions", (to) => contractBody(to, { conditions: [] })],
    ["21 conditions", (to) => contractBody(to, { conditions: Array.from({ length: 21 }, (_, i) => ({ ...condition, id: `c${i}` })) })],
    ["duplicate condition ids", (to) => contractBody(to, { conditions: [condition, { ...condition, type: "OTHER" }] })],
    ["condition without id", (to) => contractBody(to, { conditions: [{ type: "X", description: "d", params: {} }] })],
    ["condition with empty id", (to) => contractBody(to, { conditions: [{ ...condition, id: "" }] })],
    ["condition params not an object", (to) => contractBody(to, { conditions: [{ ...condition, params: "x" }] })],
    ["condition with an unknown field", (to) => contractBody(to, { conditions: [{ ...condition, due: 1 }] })],
    ["deadlineDays 0", (to) => contractBody(to, { deadlineDays: 0 })],
    ["deadlineDays 366", (to) => contractBody(to, { deadlineDays: 366 })],
    ["deadlineDays 1.5", (to) => contractBody(to, { deadlineDays: 1.5 })],
    ["deadlineDays as a string", (to) => contractBody(to, { deadlineDays: "30" })],
    ["an unknown field", (to) => contractBody(to, { penalty: 5 })],
  ];
  test.each(badBodies)("POST /contracts with %s → 400, nothing held", async (_, body) => {
    const creator = await agent(100);
    const counterparty = await agent();
    await expectStatus(await create(creator, body(counterparty.id)), 400, "VALIDATION_ERROR");
    await expectBalances([[creator, { available: 100, held: 0 }]]);
    expect((await server.request("GET", "/contracts/mine", { key: counterparty.apiKey })).body.pagination.total).toBe(0);
  });

  test("ids, bodies, queries and auth on every route", async () => {
    const { creator, counterparty, id } = await contract({ signed: true });
    for (const path of ["/contracts/not-a-uuid", "/contracts/123"]) {
      await expectStatus(await server.request("GET", path, { key: creator.apiKey }), 400, "VALIDATION_ERROR");
      await expectStatus(await server.request("POST", `${path}/sign`, { key: counterparty.apiKey }), 400, "VALIDATION_ERROR");
      await expectStatus(await server.request("POST", `${path}/fulfill`, { key: creator.apiKey, body: { conditionId: "deliver" } }), 400, "VALIDATION_ERROR");
      await expectStatus(await server.request("POST", `${path}/cancel`, { key: creator.apiKey }), 400, "VALIDATION_ERROR");
    }
    const unknown = crypto.randomUUID();
    for (const reply of [await read(creator, unknown), await sign(counterparty, unknown), await fulfill(creator, unknown, "deliver"), await cancel(creator, unknown)]) {
      await expectStatus(reply, 404, "NOT_FOUND");
    }
    for (const body of [{}, { conditionId: "" }, { conditionId: 7 }, { conditionId: "x".repeat(65) }, { conditionId: "deliver", extra: 1 }]) {
      await expectStatus(await server.request("POST", `/contracts/${id}/fulfill`, { key: creator.apiKey, body }), 400, "VALIDATION_ERROR");
    }
    for (const query of ["limit=0", "limit=101", "offset=-1", "role=creator"]) {
      await expectStatus(await server.request("GET", `/contracts/mine?${query}`, { key: creator.apiKey }), 400, "VALIDATION_ERROR");
    }
    for (const [method, path] of [["POST", "/contracts"], ["GET", "/contracts/mine"], ["GET", `/contracts/${id}`], ["POST", `/contracts/${id}/sign`], ["POST", `/contracts/${id}/fulfill`], ["POST", `/contracts/${id}/cancel`]]) {
      await expectStatus(await server.request(method!, path!, { body: method === "POST" ? {} : undefined }), 401, "UNAUTHORIZED");
    }
    const unchanged = (await read(creator, id)).body;
    expect(unchanged.status).toBe("ACTIVE");
    expect(unchanged.conditions.every((row: { fulfilled: boolean }) => !row.fulfilled)).toBe(true);
    await expectBalances([[creator, { available: 150, held: 50 }], [counterparty, { available: 0, held: 0 }]]);
    await expectLedgerOk(server);
  });
});
