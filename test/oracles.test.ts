// API and ORACLE_NET bets resolved by their oracles: an API served by the test, an aggregator on anvil.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HOUR_MS, MINUTE_MS } from "../src/time";
import { startAnvil, TEST_MNEMONIC, type Anvil } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let anvil: Anvil;
let server: TestServer;
let answer: unknown = { data: { price: 101.5, winner: "A" } };
let oracleStatus = 200;
const oracleApi = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => (oracleStatus === 200 ? Response.json(answer) : new Response("down", { status: oracleStatus })),
});
const oracleUrl = `http://127.0.0.1:${oracleApi.port}/score`;

beforeAll(async () => {
  anvil = await startAnvil();
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC },
  });
});
afterAll(async () => {
  await server.close();
  anvil.stop();
  oracleApi.stop(true);
});

const serviceNow = async () => Date.parse((await server.request("GET", "/health")).body.timestamp);

async function matchedBet(oracleType: "API" | "ORACLE_NET", oracle: Record<string, unknown>): Promise<{ id: string; creator: Agent; acceptor: Agent }> {
  const creator = await server.register();
  const acceptor = await server.register();
  await server.deposit(creator.id, 20);
  await server.deposit(acceptor.id, 20);
  const bet = await server.request("POST", "/betting", {
    key: creator.apiKey,
    body: { description: "oracle bet", condition: "the oracle says so", amount: 10, currency: "USDC", oracleType, oracle, expiresInHours: 48 },
  });
  if (bet.status !== 201) throw new Error(`create: ${bet.status} ${JSON.stringify(bet.body)}`);
  expect((await server.request("POST", `/betting/${bet.body.id}/accept`, { key: acceptor.apiKey })).status).toBe(200);
  return { id: bet.body.id, creator, acceptor };
}

const read = async (agent: Agent, id: string) => (await server.request("GET", `/betting/${id}`, { key: agent.apiKey })).body;

describe("API oracle", () => {
  test("at resolveAt the oracle settles MET: the creator wins the pot", async () => {
    const resolveAt = new Date((await serviceNow()) + HOUR_MS).toISOString();
    const { id, creator, acceptor } = await matchedBet("API", { url: oracleUrl, jsonPath: "$.data.price", operator: "gt", value: 100, resolveAt });
    await server.advance(3590);
    expect((await read(creator, id)).status).toBe("MATCHED");
    await server.advance(20);
    const settled = await read(creator, id);
    expect(settled).toMatchObject({ status: "SETTLED", outcome: "MET", winnerId: creator.id, resolvedBy: "ORACLE" });
    expect(await server.balance(creator)).toEqual({ available: 30, held: 0 });
    expect(await server.balance(acceptor)).toEqual({ available: 10, held: 0 });
    expect((await server.request("GET", `/agents/${creator.id}/reputation`)).body.score).toBe(2);
    await expectLedgerOk(server);
  });

  test("a string comparison that fails settles NOT_MET: the acceptor wins", async () => {
    const resolveAt = new Date((await serviceNow()) + MINUTE_MS).toISOString();
    const { id, creator, acceptor } = await matchedBet("API", { url: oracleUrl, jsonPath: "data.winner", operator: "eq", value: "B", resolveAt });
    await server.advance(61);
    expect(await read(acceptor, id)).toMatchObject({ status: "SETTLED", outcome: "NOT_MET", winnerId: acceptor.id });
    expect(await server.balance(acceptor)).toEqual({ available: 30, held: 0 });
    expect(await server.balance(creator)).toEqual({ available: 10, held: 0 });
  });

  test("an oracle that fails is retried for 24 h, then the bet is DISPUTED for the operator", async () => {
    oracleStatus = 500;
    try {
      const resolveAt = new Date((await serviceNow()) + MINUTE_MS).toISOString();
      const { id, creator, acceptor } = await matchedBet("API", { url: oracleUrl, jsonPath: "$.data.price", operator: "gt", value: 100, resolveAt });
      await server.advance(61);
      expect((await read(creator, id)).status).toBe("MATCHED");
      await server.advance(12 * 3600);
      expect((await read(creator, id)).status).toBe("MATCHED");
      await server.advance(12 * 3600 + 120);
      expect((await read(creator, id)).status).toBe("DISPUTED");
      const resolved = await server.admin("POST", `/admin/bets/${id}/resolve`, { outcome: "VOID" });
      expect(resolved.body.status).toBe("VOID");
      expect(await server.balance(creator)).toEqual({ available: 20, held: 0 });
      expect(await server.balance(acceptor)).toEqual({ available: 20, held: 0 });
    } finally {
      oracleStatus = 200;
    }
    await expectLedgerOk(server);
  });
});

describe("ORACLE_NET (a price feed on the local EVM)", () => {
  test("a fresh round settles the bet; a stale round is not used", async () => {
    const feed = await anvil.deploy("TestAggregator", [8]);
    const now = await serviceNow();
    const resolveAt = now + HOUR_MS;
    await anvil.setFeedAnswer(feed, 101n * 10n ** 8n, BigInt(Math.floor(resolveAt / 1000) - 60));
    const fresh = await matchedBet("ORACLE_NET", { feed, operator: "gte", value: 100.5, resolveAt: new Date(resolveAt).toISOString() });

    const staleFeed = await anvil.deploy("TestAggregator", [8]);
    await anvil.setFeedAnswer(staleFeed, 101n * 10n ** 8n, BigInt(Math.floor(resolveAt / 1000) - 7200));
    const stale = await matchedBet("ORACLE_NET", { feed: staleFeed, operator: "gte", value: 100.5, resolveAt: new Date(resolveAt).toISOString() });

    await server.advance(3601);
    expect(await read(fresh.creator, fresh.id)).toMatchObject({ status: "SETTLED", outcome: "MET", winnerId: fresh.creator.id, resolvedBy: "ORACLE" });
    expect((await read(stale.creator, stale.id)).status).toBe("MATCHED");
    await server.advance(25 * 3600);
    expect((await read(stale.creator, stale.id)).status).toBe("DISPUTED");
    await expectLedgerOk(server);
  });
});
