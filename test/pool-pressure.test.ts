// No feature can hang the pool (issue 32, finding 4): two instances on one PostgreSQL database with a
// pool of 4 connections each take 3 × the pool of concurrent x402 facilitator settles AND as many
// withdrawals each, all signed by the one treasury under its sender lock. Before, every settle
// reserved a connection to wait in pg_advisory_lock and the holder needed one more: the instance hung
// for good (its /health too), and the other instance's settles and withdrawals waited on the lock
// behind it. Now waiters hold no connection: /health and a balance read answer throughout (polled
// every 100 ms on both instances, the worst answer recorded), and every settle and withdrawal ends
// (settled or pending with its transaction, or 503 SERVICE_BUSY with Retry-After), each authorization
// sent at most once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type Agent, type Reply, type TestServer } from "./helpers/server";
import { waitFor, within } from "./helpers/wait";
import { signedPayment, startOfficialX402, type OfficialX402 } from "./x402/official";

const POOL = 4;
const LOAD = 3 * POOL;
const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** What "never hangs" means here: each settle and withdrawal request has answered by then. */
const ANSWER_MS = 60_000;
/** The most a health or balance probe may take. */
const PROBE_MS = 1_000;

let x: OfficialX402;
let instances: TestServer[] = [];
const buyer = privateKeyToAccount(generatePrivateKey());

describe.skipIf(TEST_POSTGRES === undefined)(`${LOAD} settles and ${LOAD} withdrawals at once on each of two instances, DB_POOL_SIZE=${POOL}`, () => {
  beforeAll(async () => {
    x = await startOfficialX402();
    const env = {
      CHAIN_RPC_URL: x.anvil.rpcUrl,
      CHAIN_ID: String(x.chainId),
      USDC_ADDRESS: x.usdc,
      MASTER_MNEMONIC: TEST_MNEMONIC,
      CONFIRMATIONS: "1",
      DB_POOL_SIZE: String(POOL),
      X402_FACILITATOR_GAS_PER_DAY: "1000000000",
    };
    const first = await startServer({ env });
    instances = [first, await startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ...env } })];
    await x.mint(buyer.address, "1");
    await x.mint(TREASURY, "10");
  }, 60_000);
  afterAll(async () => {
    await instances[1]?.close();
    await instances[0]?.close();
    await x?.stop();
  });

  /** Every 100 ms until `stop()`: GET /health and GET /wallets/balance on both instances, the slowest answer and any that was not 200. */
  function probe(reader: Agent) {
    const seen = { slowestMs: 0, slowest: "", failures: [] as string[], rounds: 0 };
    let running = true;
    const timed = async (what: string, call: () => Promise<Reply>) => {
      const started = Date.now();
      try {
        const reply = await within(5_000, what, call());
        if (reply.status !== 200) seen.failures.push(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
      } catch (error) {
        seen.failures.push(String(error));
      }
      const ms = Date.now() - started;
      if (ms > seen.slowestMs) Object.assign(seen, { slowestMs: ms, slowest: what });
    };
    const loop = (async () => {
      while (running) {
        await Promise.all(
          instances.flatMap((instance, i) => [
            timed(`GET /health on instance ${i}`, () => instance.request("GET", "/health")),
            timed(`GET /wallets/balance on instance ${i}`, () => instance.request("GET", "/wallets/balance", { key: reader.apiKey })),
          ]),
        );
        seen.rounds++;
        await Bun.sleep(100);
      }
    })();
    return {
      seen,
      stop: async () => {
        running = false;
        await loop;
      },
    };
  }

  test("/health and a balance read answer within 1 s throughout; every settle and withdrawal ends; each authorization is sent once", async () => {
    const reader = await instances[0]!.register();
    const sellers = await Promise.all(instances.map((instance) => instance.register()));
    const payTo = await Promise.all(
      sellers.map(async (seller, i) => (await instances[i]!.request("GET", "/wallets/blockchain", { key: seller.apiKey })).body.address as Address),
    );
    const withdrawers = await Promise.all(Array.from({ length: 2 * LOAD }, (_, n) => instances[n % 2]!.register()));
    for (const [n, agent] of withdrawers.entries()) await instances[n % 2]!.deposit(agent.id, 1);
    const payments = await Promise.all(Array.from({ length: 2 * LOAD }, (_, n) => signedPayment(x, buyer, { to: payTo[n % 2]! })));
    // One settle and one withdrawal on each instance first: the load then finds its code compiled and its clients made.
    for (const [i, instance] of instances.entries()) {
      const warm = await instance.register();
      await instance.deposit(warm.id, 1);
      expect((await instance.request("POST", "/wallets/withdraw", { key: warm.apiKey, body: { toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: 0.01 } })).status).toBe(200);
      const body = await signedPayment(x, buyer, { to: payTo[i]! });
      expect((await instance.request("POST", "/x402/facilitator/settle", { key: sellers[i]!.apiKey, body })).body.success).toBe(true);
    }
    const treasuryNonceBefore = await x.anvil.client.getTransactionCount({ address: TREASURY });

    const probes = probe(reader);
    // Every request is built first and released together, so they overlap as much as they can.
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const settles = payments.map((body, n) =>
      barrier.then(() => within(ANSWER_MS, `settle ${n}`, instances[n % 2]!.request("POST", "/x402/facilitator/settle", { key: sellers[n % 2]!.apiKey, body }))),
    );
    const withdrawals = withdrawers.map((agent, n) =>
      barrier.then(() =>
        within(ANSWER_MS, `withdrawal ${n}`, instances[n % 2]!.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: 0.01 } })),
      ),
    );
    release();
    const [settled, withdrawn] = await Promise.all([Promise.all(settles), Promise.all(withdrawals)]);
    await probes.stop();

    const busy = (reply: Reply) => reply.status === 503 && reply.body.error === "SERVICE_BUSY" && Number(reply.headers.get("retry-after")) >= 1;
    const outcome = (reply: Reply) =>
      busy(reply) ? "busy" : reply.status !== 200 ? `${reply.status} ${JSON.stringify(reply.body)}` : reply.body.success ? "settled" : reply.body.errorReason === "settlement_pending" && reply.body.transaction ? "pending" : JSON.stringify(reply.body);
    expect(settled.map(outcome).filter((what) => !["settled", "pending", "busy"].includes(what))).toEqual([]);
    expect(withdrawn.filter((reply) => !busy(reply) && !(reply.status === 200 && reply.body.status === "PENDING")).map((reply) => `${reply.status} ${JSON.stringify(reply.body)}`)).toEqual([]);
    console.log(JSON.stringify({ probeRounds: probes.seen.rounds, slowestProbeMs: probes.seen.slowestMs, slowest: probes.seen.slowest, settles: countBy(settled.map(outcome)), withdrawals: countBy(withdrawn.map((reply) => (busy(reply) ? "busy" : reply.body.status))) }));
    expect(probes.seen.failures).toEqual([]);
    expect(probes.seen.slowestMs).toBeLessThan(PROBE_MS);

    // Every withdrawal accepted is sent (the sender, or the next job tick, takes it); one transaction each.
    const accepted = withdrawn.flatMap((reply, n) => (reply.status === 200 ? [{ agent: withdrawers[n]!, id: reply.body.id as string, on: instances[n % 2]! }] : []));
    for (const { agent, id, on } of accepted) {
      await waitFor(async () => ((await on.request("GET", `/wallets/withdrawals/${id}`, { key: agent.apiKey })).body.txHash ? true : undefined), 30_000);
    }
    const sent = settled.filter((reply) => reply.status === 200 && reply.body.transaction).length;
    await waitFor(async () => ((await x.anvil.client.getTransactionCount({ address: TREASURY })) - treasuryNonceBefore === sent + accepted.length ? true : undefined), 30_000);
    // Each settled authorization is spent once on chain, and its sale credited once the block is confirmed.
    await x.anvil.mine(2);
    await instances[1]!.advance(1);
    const credited = await Promise.all(sellers.map(async (seller, i) => (await instances[i]!.request("GET", "/wallets/history?limit=100", { key: seller.apiKey })).body.data.filter((entry: { type: string }) => entry.type === "X402_SALE").length));
    expect(credited.reduce((a, b) => a + b, 0)).toBe(sent + instances.length);
    await expectLedgerOk(instances[0]!);
  }, 180_000);
});

const countBy = (values: string[]) => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});
