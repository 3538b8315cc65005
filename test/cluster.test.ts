// Several agentbank instances on one PostgreSQL database (run with `bun run test:postgres`; skipped on
// SQLite, whose file has one process): the bank workload spread over three instances conserves every
// total; SIGKILL of one under load loses nothing it acknowledged, and the others take its jobs over; a
// subscription that falls due during the failover is charged exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { waitFor } from "./helpers/wait";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";

const DAY = 86_400;
let instances: TestServer[] = [];

describe.skipIf(TEST_POSTGRES === undefined)("three instances on one PostgreSQL", () => {
  beforeAll(async () => {
    const first = await startServer();
    // The others join the first one's database (and custodial keys); the test clock is shared through it.
    const join = () => startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ADMIN_API_KEY: ADMIN_KEY } });
    instances = [first, await join(), await join()];
  });
  afterAll(async () => {
    for (const instance of instances.slice(1)) await instance.close();
    await instances[0]?.close();
  });

  const on = (index: number) => instances[index % instances.length]!;

  async function fundedAgents(count: number, amount: number): Promise<Agent[]> {
    const agents = await Promise.all(Array.from({ length: count }, (_, i) => on(i).register()));
    for (const [i, agent] of agents.entries()) await on(i).deposit(agent.id, amount);
    return agents;
  }

  test("the bank workload over every instance: no negative balance, no torn snapshot, the total never moves", async () => {
    const agents = await fundedAgents(6, 100);
    const total = 600;
    const failures: string[] = [];
    const deadline = Date.now() + 6_000;
    let transfers = 0;
    const writer = async (w: number) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const from = agents[(w + n) % agents.length]!;
        const to = agents[(w + n + 1 + (n % 4)) % agents.length]!;
        const amount = Math.round((0.01 + Math.random() * 30) * 100) / 100;
        const reply = await on(w + n).request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount, currency: "USDC" } });
        if (reply.status === 201) transfers++;
        else if (reply.body?.error !== "INSUFFICIENT_BALANCE") failures.push(`${reply.status} ${JSON.stringify(reply.body)}`);
      }
    };
    const snapshots = async () => {
      for (let n = 0; Date.now() < deadline; n++) {
        const check = await on(n).ledgerCheck();
        const usdc = check.totals.find((row: { currency: string }) => row.currency === "USDC");
        if (!check.ok) failures.push(`ledger check failed mid-run on instance ${n % 3}`);
        if (Math.round((usdc.agentsAvailable + usdc.agentsHeld) * 1e6) !== total * 1e6) failures.push(`torn snapshot: ${usdc.agentsAvailable + usdc.agentsHeld}`);
        for (const agent of agents.slice(0, 2)) {
          const { available } = await on(n + 1).balance(agent);
          if (available < 0) failures.push(`negative balance ${available}`);
        }
      }
    };
    await Promise.all([...Array.from({ length: 24 }, (_, w) => writer(w)), snapshots()]);
    // A 500's cause is in the instance's log, not in the answer: shown with the failure.
    const errors = failures.length === 0 ? [] : instances.flatMap((instance) => instance.logs.join("").split("\n").filter((line) => line.includes('"level":"error"')));
    expect([failures, errors]).toEqual([[], []]);
    expect(transfers).toBeGreaterThan(100);
    let sum = 0;
    for (const agent of agents) sum += (await on(2).balance(agent)).available;
    expect(Math.round(sum * 1e6)).toBe(total * 1e6);
    await expectLedgerOk(on(1));
  }, 60_000);

  test("SIGKILL of an instance under load: every payment it acknowledged is there, the others carry on", async () => {
    const agents = await fundedAgents(4, 1_000);
    const victim = instances[0]!;
    const acknowledged: { id: string; payer: Agent }[] = [];
    let stop = false;
    let victimDead = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        // A third of the clients talk to the instance about to die; they fail over to the others after.
        const target = w % 3 === 0 && !victimDead ? victim : on(1 + (w % 2));
        const from = agents[w % 4]!;
        const to = agents[(w + 1) % 4]!;
        try {
          const reply = await target.request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount: 0.01, currency: "USDC" } });
          if (reply.status === 201) acknowledged.push({ id: reply.body.id, payer: from });
        } catch {
          await Bun.sleep(10);
        }
      }
    };
    const writers = Array.from({ length: 18 }, (_, w) => writer(w));
    await Bun.sleep(1_000);
    await victim.stop("SIGKILL");
    victimDead = true;
    await Bun.sleep(1_000);
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(50);
    const survivor = on(1);
    const lost = [];
    for (const { id, payer } of acknowledged) {
      if ((await survivor.request("GET", `/payments/${id}`, { key: payer.apiKey })).status !== 200) lost.push(id);
    }
    expect(lost).toEqual([]);
    await expectLedgerOk(survivor);
    await victim.restart();
    await expectLedgerOk(victim);
  }, 60_000);

  test("a restricted key revoked, or past its expiry, on one instance is refused on the next request on every instance", async () => {
    const [agent] = await fundedAgents(1, 100);
    const make = async (body: Record<string, unknown>) => {
      const made = await on(0).request("POST", "/agents/me/keys", { key: agent!.apiKey, body: { name: "sub-agent", scopes: ["read"], ...body } });
      expect(made.status).toBe(201);
      return made.body as { id: string; apiKey: string };
    };
    const balanceWith = (index: number, key: string) => on(index).request("GET", "/wallets/balance", { key });

    const revoked = await make({});
    for (const index of [0, 1, 2]) expect((await balanceWith(index, revoked.apiKey)).status).toBe(200);
    expect((await on(1).request("DELETE", `/agents/me/keys/${revoked.id}`, { key: agent!.apiKey })).status).toBe(200);
    for (const index of [0, 1, 2]) expect((await balanceWith(index, revoked.apiKey)).status).toBe(401);

    const expiring = await make({ expiresInSeconds: 3600 });
    for (const index of [0, 1, 2]) expect((await balanceWith(index, expiring.apiKey)).status).toBe(200);
    await on(2).advance(3601);
    for (const index of [0, 1, 2]) expect((await balanceWith(index, expiring.apiKey)).status).toBe(401);
    for (const index of [0, 1, 2]) expect((await balanceWith(index, agent!.apiKey)).status).toBe(200);
  });

  test("a subscription due while the instance running the jobs dies is charged exactly once per period", async () => {
    const [payer, recipient] = await fundedAgents(2, 100);
    const created = await on(1).request("POST", "/subscriptions", { key: payer!.apiKey, body: { recipientId: recipient!.id, amount: 1, currency: "USDC", frequency: "DAILY" } });
    expect(created.status).toBe(201);
    // Instance 0 moves the shared clock three days on and starts running the jobs; it dies meanwhile —
    // once the move has committed (seen by another instance), or the test would check a clock that
    // never moved.
    const before = Date.parse((await on(1).request("GET", "/health")).body.timestamp);
    const advancing = on(0).advance(3 * DAY).catch(() => {});
    await waitFor(async () => Date.parse((await on(1).request("GET", "/health")).body.timestamp) >= before + 3 * DAY * 1000 || undefined);
    await instances[0]!.stop("SIGKILL");
    await advancing;
    // Another instance's scheduler (or this call) takes the jobs over; the shared clock stays moved.
    await on(2).advance(0);
    await on(1).advance(0);
    const subscription = (await on(1).request("GET", `/subscriptions/${created.body.id}`, { key: payer!.apiKey })).body;
    expect(subscription.periodsCharged).toBe(4);
    const received = (await on(2).request("GET", "/wallets/history?limit=100", { key: recipient!.apiKey })).body.data.filter((entry: { type: string }) => entry.type === "PAYMENT_RECEIVED");
    expect(received).toHaveLength(4);
    expect(await on(2).balance(payer!)).toEqual({ available: 96, held: 0 });
    await expectLedgerOk(on(2));
    await instances[0]!.restart();
  }, 60_000);
});
