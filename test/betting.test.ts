import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../src/time";
import { expectLedgerOk } from "./helpers/ledger";
import { block, financialNotifications } from "./helpers/inbox";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const HOUR = 3600;

async function agent(fund = 0, currency = "USDC"): Promise<Agent> {
  const created = await server.register();
  if (fund > 0) await server.deposit(created.id, fund, currency);
  return created;
}

const betBody = (overrides: Record<string, unknown> = {}) => ({ description: "Final match", condition: "Team A wins", amount: 10, currency: "USDC", ...overrides });
const create = (creator: Agent, body: unknown, headers: Record<string, string> = {}) => server.request("POST", "/betting", { key: creator.apiKey, body, headers });
const accept = (acceptor: Agent, id: string) => server.request("POST", `/betting/${id}/accept`, { key: acceptor.apiKey });
const report = (party: Agent, id: string, outcome: unknown) => server.request("POST", `/betting/${id}/resolve`, { key: party.apiKey, body: { outcome } });
const operator = (id: string, outcome: unknown) => server.admin("POST", `/admin/bets/${id}/resolve`, { outcome });
const read = (caller: Agent, id: string) => server.request("GET", `/betting/${id}`, { key: caller.apiKey });
const reputation = async (subject: Agent) => (await server.request("GET", `/agents/${subject.id}/reputation`)).body;

async function expectBalances(expected: [Agent, { available: number; held: number }][], currency = "USDC"): Promise<void> {
  for (const [who, balance] of expected) expect(await server.balance(who, currency)).toEqual(balance);
}

/** A MATCHED bet of `amount` between two fresh agents funded with 100 each. */
async function matched(amount = 10) {
  const creator = await agent(100);
  const acceptor = await agent(100);
  const bet = (await create(creator, betBody({ amount }))).body;
  expect((await accept(acceptor, bet.id)).status).toBe(200);
  return { creator, acceptor, id: bet.id as string };
}

describe("bet lifecycle", () => {
  test("create → accept → both report MET: the creator takes the pot and +2", async () => {
    const creator = await agent(100);
    const acceptor = await agent(50);
    const stranger = await agent();

    const created = await create(creator, betBody());
    expect(created.status).toBe(201);
    const bet = created.body;
    expect(bet.id).toMatch(/^bet_[A-Za-z0-9_-]+$/);
    expect(bet).toMatchObject({
      creatorId: creator.id, acceptorId: null, description: "Final match", condition: "Team A wins", amount: 10, currency: "USDC",
      oracleType: "MANUAL", oracle: null, status: "OPEN", creatorOutcome: null, acceptorOutcome: null, outcome: null,
      winnerId: null, resolvedBy: null, matchedAt: null, closedAt: null,
    });
    expect(Date.parse(bet.expiresAt) - Date.parse(bet.createdAt)).toBe(24 * HOUR * 1000);
    await expectBalances([[creator, { available: 90, held: 10 }], [acceptor, { available: 50, held: 0 }]]);

    // An OPEN bet is listed publicly, so anyone may read it.
    expect((await read(stranger, bet.id)).body.status).toBe("OPEN");
    const open = (await server.request("GET", "/betting/open", { key: acceptor.apiKey })).body;
    expect(open.data.map((row: { id: string }) => row.id)).toContain(bet.id);
    const own = (await server.request("GET", "/betting/open", { key: creator.apiKey })).body;
    expect(own.data.map((row: { id: string }) => row.id)).not.toContain(bet.id);

    const accepted = await accept(acceptor, bet.id);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: "MATCHED", acceptorId: acceptor.id });
    expect(accepted.body.matchedAt).not.toBeNull();
    await expectBalances([[creator, { available: 90, held: 10 }], [acceptor, { available: 40, held: 10 }]]);
    expect((await financialNotifications(server, creator, "bet."))).toEqual([{ kind: "bet.accepted", betId: bet.id, creatorId: creator.id, acceptorId: acceptor.id, amount: 10, currency: "USDC" }]);
    expect((await financialNotifications(server, acceptor, "bet.")).map((data) => data.kind)).toEqual(["bet.accepted"]);

    // MATCHED: hidden from non-parties, not acceptable again.
    expect((await read(stranger, bet.id)).status).toBe(404);
    expect((await report(stranger, bet.id, "MET")).status).toBe(404);
    const again = await accept(stranger, bet.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("INVALID_STATE");
    expect((await accept(acceptor, bet.id)).status).toBe(409);

    const first = await report(creator, bet.id, "MET");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "MATCHED", creatorOutcome: "MET", acceptorOutcome: null });
    const twice = await report(creator, bet.id, "MET");
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe("INVALID_STATE");

    const settled = await report(acceptor, bet.id, "MET");
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: "SETTLED", outcome: "MET", winnerId: creator.id, resolvedBy: "PARTIES", creatorOutcome: "MET", acceptorOutcome: "MET" });
    expect(settled.body.closedAt).not.toBeNull();
    await expectBalances([[creator, { available: 110, held: 0 }], [acceptor, { available: 40, held: 0 }]]);

    const score = await reputation(creator);
    expect(score.score).toBe(2);
    expect(score.events[0]).toMatchObject({ reason: "BET_WON", change: 2, reference: { type: "bet", id: bet.id } });
    expect((await reputation(acceptor)).score).toBe(0);
    expect((await financialNotifications(server, creator, "bet.settled"))).toEqual([
      { kind: "bet.settled", betId: bet.id, outcome: "MET", resolvedBy: "PARTIES", amount: 10, currency: "USDC", winnerId: creator.id },
    ]);
    expect((await financialNotifications(server, acceptor, "bet.settled"))).toHaveLength(1);

    // SETTLED: every action is 409; the parties still read it.
    for (const reply of [await accept(stranger, bet.id), await report(acceptor, bet.id, "NOT_MET"), await operator(bet.id, "VOID")]) {
      expect(reply.status).toBe(409);
      expect(reply.body.error).toBe("INVALID_STATE");
    }
    expect((await read(acceptor, bet.id)).body.status).toBe("SETTLED");
    expect((await read(stranger, bet.id)).status).toBe(404);
    await expectBalances([[creator, { available: 110, held: 0 }], [acceptor, { available: 40, held: 0 }]]);
    await expectLedgerOk(server);
  });

  test("both report NOT_MET: the acceptor takes the pot and +2", async () => {
    const { creator, acceptor, id } = await matched(25);
    await expectBalances([[creator, { available: 75, held: 25 }], [acceptor, { available: 75, held: 25 }]]);
    expect((await report(acceptor, id, "NOT_MET")).body).toMatchObject({ status: "MATCHED", acceptorOutcome: "NOT_MET", creatorOutcome: null });
    const settled = await report(creator, id, "NOT_MET");
    expect(settled.body).toMatchObject({ status: "SETTLED", outcome: "NOT_MET", winnerId: acceptor.id });
    await expectBalances([[creator, { available: 75, held: 0 }], [acceptor, { available: 125, held: 0 }]]);
    expect((await reputation(acceptor)).score).toBe(2);
    expect((await reputation(creator)).score).toBe(0);
    await expectLedgerOk(server);
  });

  test("both report VOID: each stake goes back, nobody scores", async () => {
    const { creator, acceptor, id } = await matched(12.5);
    await report(creator, id, "VOID");
    const voided = await report(acceptor, id, "VOID");
    expect(voided.body).toMatchObject({ status: "VOID", outcome: "VOID", winnerId: null, resolvedBy: "PARTIES" });
    await expectBalances([[creator, { available: 100, held: 0 }], [acceptor, { available: 100, held: 0 }]]);
    expect((await reputation(creator)).score).toBe(0);
    expect((await reputation(acceptor)).score).toBe(0);
    for (const party of [creator, acceptor]) {
      expect((await financialNotifications(server, party, "bet.settled"))).toEqual([
        { kind: "bet.settled", betId: id, outcome: "VOID", resolvedBy: "PARTIES", amount: 12.5, currency: "USDC", winnerId: null },
      ]);
    }
    expect((await report(creator, id, "MET")).status).toBe(409);
    await expectLedgerOk(server);
  });

  test("different reports dispute the bet; the operator settles it", async () => {
    const { creator, acceptor, id } = await matched(10);
    await report(creator, id, "MET");
    const disputed = await report(acceptor, id, "NOT_MET");
    expect(disputed.status).toBe(200);
    expect(disputed.body).toMatchObject({ status: "DISPUTED", creatorOutcome: "MET", acceptorOutcome: "NOT_MET", outcome: null });
    await expectBalances([[creator, { available: 90, held: 10 }], [acceptor, { available: 90, held: 10 }]]);
    for (const party of [creator, acceptor]) {
      const reply = await report(party, id, "VOID");
      expect(reply.status).toBe(409);
      expect(reply.body.error).toBe("INVALID_STATE");
    }

    const resolved = await operator(id, "NOT_MET");
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: "SETTLED", outcome: "NOT_MET", winnerId: acceptor.id, resolvedBy: "OPERATOR" });
    await expectBalances([[creator, { available: 90, held: 0 }], [acceptor, { available: 110, held: 0 }]]);
    expect((await reputation(acceptor)).score).toBe(2);
    expect((await operator(id, "MET")).status).toBe(409);
    await expectLedgerOk(server);
  });

  test("the operator may settle a MATCHED bet nobody reported, but not an OPEN one", async () => {
    const { creator, acceptor, id } = await matched(10);
    const voided = await operator(id, "VOID");
    expect(voided.body).toMatchObject({ status: "VOID", resolvedBy: "OPERATOR" });
    await expectBalances([[creator, { available: 100, held: 0 }], [acceptor, { available: 100, held: 0 }]]);

    const open = (await create(creator, betBody())).body;
    const reply = await operator(open.id, "MET");
    expect(reply.status).toBe(409);
    expect(reply.body.error).toBe("INVALID_STATE");
    // OPEN: the creator cannot report yet either.
    expect((await report(creator, open.id, "MET")).status).toBe(409);
    await expectBalances([[creator, { available: 90, held: 10 }]]);
    await expectLedgerOk(server);
  });

  test("API and ORACLE_NET bets keep their oracle settings and are resolved by the operator", async () => {
    const creator = await agent(100);
    const acceptor = await agent(100);
    const resolveAt = new Date(Date.now() + 365 * DAY_MS).toISOString();
    const oracle = { url: "https://1.1.1.1/match/7", jsonPath: "$.winner", operator: "eq", value: "A", resolveAt };
    const api = await create(creator, betBody({ oracleType: "API", oracle }));
    expect(api.status).toBe(201);
    expect(api.body).toMatchObject({ oracleType: "API", oracle });
    const feed = { feed: "0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419", operator: "gt", value: 100000, resolveAt };
    const net = await create(creator, betBody({ oracleType: "ORACLE_NET", oracle: feed }));
    expect(net.body).toMatchObject({ oracleType: "ORACLE_NET", oracle: feed });
    expect((await read(creator, api.body.id)).body.oracle).toEqual(oracle);

    await accept(acceptor, api.body.id);
    const resolved = await operator(api.body.id, "MET");
    expect(resolved.body).toMatchObject({ status: "SETTLED", winnerId: creator.id, resolvedBy: "OPERATOR" });
    await expectBalances([[creator, { available: 100, held: 10 }], [acceptor, { available: 90, held: 0 }]]);
    await expectLedgerOk(server);
  });
});

describe("bet expiry", () => {
  test("an OPEN bet expires at expiresAt: stake returned, no longer listed or acceptable", async () => {
    const creator = await agent(100);
    const acceptor = await agent(100);
    const bet = (await create(creator, betBody({ expiresInHours: 1 }))).body;
    expect(Date.parse(bet.expiresAt) - Date.parse(bet.createdAt)).toBe(HOUR * 1000);
    const untouched = (await create(creator, betBody({ amount: 5, expiresInHours: 2 }))).body;

    await server.advance(HOUR - 1);
    expect((await read(creator, bet.id)).body.status).toBe("OPEN");
    await expectBalances([[creator, { available: 85, held: 15 }]]);

    await server.advance(1);
    const expired = await read(creator, bet.id);
    expect(expired.body).toMatchObject({ status: "EXPIRED", closedAt: bet.expiresAt });
    expect((await read(creator, untouched.id)).body.status).toBe("OPEN");
    await expectBalances([[creator, { available: 95, held: 5 }]]);
    expect((await financialNotifications(server, creator, "bet."))).toEqual([{ kind: "bet.expired", betId: bet.id, amount: 10, currency: "USDC" }]);

    const late = await accept(acceptor, bet.id);
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("INVALID_STATE");
    expect((await read(acceptor, bet.id)).status).toBe(404);
    const open = (await server.request("GET", "/betting/open", { key: acceptor.apiKey })).body;
    expect(open.data.map((row: { id: string }) => row.id)).not.toContain(bet.id);
    expect((await report(creator, bet.id, "MET")).status).toBe(409);
    expect((await operator(bet.id, "MET")).status).toBe(409);
    await expectBalances([[creator, { available: 95, held: 5 }], [acceptor, { available: 100, held: 0 }]]);

    // A MATCHED bet does not expire.
    await accept(acceptor, untouched.id);
    await server.advance(3 * HOUR);
    expect((await read(creator, untouched.id)).body.status).toBe("MATCHED");
    await expectBalances([[creator, { available: 95, held: 5 }], [acceptor, { available: 95, held: 5 }]]);
    await expectLedgerOk(server);
  });
});

describe("bet rules", () => {
  test("accepting your own bet is 400; a creator who blocked you is 403 and hides the bet; nothing held", async () => {
    const creator = await agent(100);
    const blocked = await agent(100);
    const bet = (await create(creator, betBody())).body;
    const own = await accept(creator, bet.id);
    expect(own.status).toBe(400);
    expect(own.body.error).toBe("VALIDATION_ERROR");

    await block(server, creator, blocked);
    const refused = await accept(blocked, bet.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("FORBIDDEN");
    const open = (await server.request("GET", "/betting/open", { key: blocked.apiKey })).body;
    expect(open.data.map((row: { id: string }) => row.id)).not.toContain(bet.id);
    expect((await read(creator, bet.id)).body.status).toBe("OPEN");
    await expectBalances([[creator, { available: 90, held: 10 }], [blocked, { available: 100, held: 0 }]]);
    await expectLedgerOk(server);
  });

  test("insufficient funds: 400 and nothing held, on create and on accept", async () => {
    const creator = await agent(5);
    const poor = await agent(3);
    const short = await create(creator, betBody({ amount: 5.000001 }));
    expect(short.status).toBe(400);
    expect(short.body.error).toBe("INSUFFICIENT_BALANCE");
    await expectBalances([[creator, { available: 5, held: 0 }]]);
    expect((await server.request("GET", "/betting/my-bets", { key: creator.apiKey })).body.pagination.total).toBe(0);

    const bet = (await create(creator, betBody({ amount: 5 }))).body;
    const refused = await accept(poor, bet.id);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("INSUFFICIENT_BALANCE");
    expect((await read(creator, bet.id)).body).toMatchObject({ status: "OPEN", acceptorId: null });
    await expectBalances([[creator, { available: 0, held: 5 }], [poor, { available: 3, held: 0 }]]);
    await expectLedgerOk(server);
  });

  test("tier limit on create and on accept: 403 TIER_LIMIT_EXCEEDED, nothing held", async () => {
    const creator = await agent(1000);
    const acceptor = await agent(1000);
    const over = await create(creator, betBody({ amount: 100.01 }));
    expect(over.status).toBe(403);
    expect(over.body.error).toBe("TIER_LIMIT_EXCEEDED");
    // Five payments (+1 each) make the creator BRONZE (500); the acceptor stays UNRATED (100).
    const sink = await agent();
    for (let i = 0; i < 5; i++) {
      expect((await server.request("POST", "/payments/send", { key: creator.apiKey, body: { toAgentId: sink.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    }
    const bet = await create(creator, betBody({ amount: 150 }));
    expect(bet.status).toBe(201);
    const refused = await accept(acceptor, bet.body.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("TIER_LIMIT_EXCEEDED");
    await expectBalances([[creator, { available: 845, held: 150 }], [acceptor, { available: 1000, held: 0 }]]);
    await expectLedgerOk(server);
  });

  test("Idempotency-Key: a retried create holds the stake once", async () => {
    const creator = await agent(100);
    const headers = { "idempotency-key": "bet-retry-1" };
    const first = await create(creator, betBody(), headers);
    const second = await create(creator, betBody(), headers);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.id).toBe(first.body.id);
    await expectBalances([[creator, { available: 90, held: 10 }]]);
    expect((await create(creator, betBody({ amount: 11 }), headers)).body.error).toBe("IDEMPOTENCY_KEY_REUSED");
    await expectLedgerOk(server);
  });
});

describe("bet lists", () => {
  test("open (others' OPEN bets, currency filter) and my-bets (created or accepted) use the envelope, newest first", async () => {
    const mine = await agent(100);
    const other = await agent(100);
    await server.deposit(other.id, 100, "EUR");
    const usdc = (await create(other, betBody())).body;
    const eur = (await create(other, betBody({ currency: "EUR", amount: 2.5 }))).body;
    const own = (await create(mine, betBody())).body;

    const eurOnly = (await server.request("GET", "/betting/open?currency=EUR", { key: mine.apiKey })).body;
    expect(eurOnly.data.map((row: { id: string }) => row.id)).toContain(eur.id);
    expect(eurOnly.data.every((row: { currency: string; status: string }) => row.currency === "EUR" && row.status === "OPEN")).toBe(true);
    expect(eurOnly.data.find((row: { id: string }) => row.id === eur.id).amount).toBe(2.5);

    const firstPage = (await server.request("GET", "/betting/open?limit=1", { key: mine.apiKey })).body;
    expect(firstPage.data).toHaveLength(1);
    expect(firstPage.pagination).toMatchObject({ limit: 1, offset: 0, hasMore: true, nextAfter: expect.any(String) });
    expect(firstPage.data[0].id).toBe(eur.id);

    await accept(mine, usdc.id);
    const my = (await server.request("GET", "/betting/my-bets", { key: mine.apiKey })).body;
    expect(my.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect(my.data.map((row: { id: string }) => row.id)).toEqual([own.id, usdc.id]);
    const second = (await server.request("GET", "/betting/my-bets?limit=1&offset=1", { key: mine.apiKey })).body;
    expect(second.data.map((row: { id: string }) => row.id)).toEqual([usdc.id]);
    expect(second.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false, nextAfter: null });
    await expectLedgerOk(server);
  });
});

describe("bad input", () => {
  const badBodies: [string, Record<string, unknown>][] = [
    ["missing description", { condition: "c", amount: 1, currency: "USDC" }],
    ["empty condition", betBody({ condition: "" })],
    ["description too long", betBody({ description: "x".repeat(1001) })],
    ["zero amount", betBody({ amount: 0 })],
    ["negative amount", betBody({ amount: -1 })],
    ["amount as a string", betBody({ amount: "10" })],
    ["too many decimals", betBody({ amount: 0.1234567 })],
    ["above 1e9", betBody({ amount: 1e10 })],
    ["unknown currency", betBody({ currency: "DOGE" })],
    ["unknown oracleType", betBody({ oracleType: "CHAINLINK" })],
    ["oracle settings on a MANUAL bet", betBody({ oracle: { url: "https://x.example" } })],
    ["API bet without oracle settings", betBody({ oracleType: "API" })],
    ["oracle settings not an object", betBody({ oracleType: "API", oracle: [1] })],
    ["API oracle without a URL", betBody({ oracleType: "API", oracle: { jsonPath: "$.x", operator: "eq", value: 1, resolveAt: "2099-01-01T00:00:00Z" } })],
    ["API oracle with an unknown operator", betBody({ oracleType: "API", oracle: { url: "https://x.example", jsonPath: "$.x", operator: "approx", value: 1, resolveAt: "2099-01-01T00:00:00Z" } })],
    ["oracle resolveAt in the past", betBody({ oracleType: "API", oracle: { url: "https://x.example", jsonPath: "$.x", operator: "eq", value: 1, resolveAt: "2001-01-01T00:00:00Z" } })],
    ["ORACLE_NET feed not an address", betBody({ oracleType: "ORACLE_NET", oracle: { feed: "BTC/USD", operator: "gt", value: 1, resolveAt: "2099-01-01T00:00:00Z" } })],
    ["oracle settings above 4096 bytes", betBody({ oracleType: "ORACLE_NET", oracle: { blob: "x".repeat(4100) } })],
    ["expiresInHours 0", betBody({ expiresInHours: 0 })],
    ["expiresInHours above 720", betBody({ expiresInHours: 721 })],
    ["an unknown field", betBody({ odds: 2 })],
  ];
  test.each(badBodies)("POST /betting with %s → 400, nothing held", async (_, body) => {
    const creator = await agent(100);
    const reply = await create(creator, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    await expectBalances([[creator, { available: 100, held: 0 }]]);
  });

  test("ids, outcomes, queries and auth on every route", async () => {
    const { creator, acceptor, id } = await matched(10);
    const unknown = "bet_doesNotExist000";
    for (const path of ["/betting/not-a-bet", "/betting/bet_!!", `/betting/bet_${"a".repeat(65)}`]) {
      expect((await server.request("GET", path, { key: creator.apiKey })).status).toBe(400);
      expect((await server.request("POST", `${path}/accept`, { key: creator.apiKey })).status).toBe(400);
      expect((await server.request("POST", `${path}/resolve`, { key: creator.apiKey, body: { outcome: "MET" } })).status).toBe(400);
    }
    expect((await read(creator, unknown)).status).toBe(404);
    expect((await accept(acceptor, unknown)).status).toBe(404);
    expect((await report(creator, unknown, "MET")).status).toBe(404);
    expect((await operator(unknown, "MET")).status).toBe(404);

    for (const body of [{ outcome: "WIN" }, { outcome: "met" }, {}, { outcome: "MET", note: "x" }]) {
      const reply = await server.request("POST", `/betting/${id}/resolve`, { key: creator.apiKey, body });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe("VALIDATION_ERROR");
      expect((await server.admin("POST", `/admin/bets/${id}/resolve`, body)).status).toBe(400);
    }
    expect((await server.admin("POST", "/admin/bets/nope/resolve", { outcome: "MET" })).status).toBe(400);
    expect((await server.request("POST", `/admin/bets/${id}/resolve`, { key: creator.apiKey, body: { outcome: "MET" } })).status).toBe(401);
    expect((await server.request("POST", `/admin/bets/${id}/resolve`, { body: { outcome: "MET" } })).status).toBe(401);

    for (const query of ["limit=0", "limit=101", "offset=-1", "currency=DOGE", "status=OPEN"]) {
      expect((await server.request("GET", `/betting/open?${query}`, { key: creator.apiKey })).status).toBe(400);
    }
    expect((await server.request("GET", "/betting/my-bets?limit=abc", { key: creator.apiKey })).status).toBe(400);

    for (const [method, path] of [["POST", "/betting"], ["GET", "/betting/open"], ["GET", "/betting/my-bets"], ["GET", `/betting/${id}`], ["POST", `/betting/${id}/accept`], ["POST", `/betting/${id}/resolve`]]) {
      const reply = await server.request(method!, path!, { body: method === "POST" ? {} : undefined });
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe("UNAUTHORIZED");
    }
    expect((await read(creator, id)).body).toMatchObject({ status: "MATCHED", creatorOutcome: null, acceptorOutcome: null });
    await expectBalances([[creator, { available: 90, held: 10 }], [acceptor, { available: 90, held: 10 }]]);
    await expectLedgerOk(server);
  });
});
