// Due work (src/due.ts): every job applies what is due in bounded runs (at most 500 items each),
// leaving the rest to the next run, and reads only due items by their index. Each run with work logs
// one line: { msg: "due work", job, loaded, applied, failed, more, scoped }.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

type DueRun = { job: string; loaded: number; applied: number; failed: number; more: boolean; scoped: boolean };

/** The unscoped (job) runs of `job` logged from line `from` on; the log is flushed every 50 ms. */
async function runsOf(job: string, from: number): Promise<DueRun[]> {
  await Bun.sleep(150);
  return server.logs
    .slice(from)
    .join("")
    .split("\n")
    .filter((line) => line.includes('"msg":"due work"'))
    .map((line) => JSON.parse(line) as DueRun & { msg: string })
    .filter((run) => run.job === job && !run.scoped);
}

async function inChunks<T>(items: T[], size: number, each: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(each));
}

describe("bounded runs", () => {
  test("1,200 expired bets of 4 agents all expire across runs of at most 500", async () => {
    const agents: Agent[] = [];
    for (let index = 0; index < 4; index++) {
      const agent = await server.register();
      await server.deposit(agent.id, 100);
      agents.push(agent);
    }
    const bets = agents.flatMap((agent) => Array.from({ length: 300 }, () => agent));
    await inChunks(bets, 25, async (agent) => {
      const reply = await server.request("POST", "/betting", { key: agent.apiKey, body: { description: "d", condition: "c", amount: 0.01, currency: "USDC", expiresInHours: 1 } });
      expect(reply.status).toBe(201);
    });
    for (const agent of agents) expect(await server.balance(agent)).toEqual({ available: 97, held: 3 });

    const from = server.logs.length;
    await server.advance(2 * 3600);
    // A run stops at 500 items or 3 s, whichever comes first (on a loaded machine, the time): it
    // leaves the rest for the next run and says so.
    const [first] = await runsOf("bets.expire", from);
    expect(first).toMatchObject({ failed: 0, more: true });
    expect(first!.loaded).toBeLessThanOrEqual(500);
    expect(first!.applied).toBe(first!.loaded);
    const appliedSoFar = async () => (await runsOf("bets.expire", from)).reduce((sum, run) => sum + run.applied, 0);
    for (let round = 0; round < 20 && (await appliedSoFar()) < 1200; round++) await server.advance(0);

    const runs = await runsOf("bets.expire", from);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const run of runs) expect(run.applied).toBeLessThanOrEqual(500);
    expect(runs.reduce((sum, run) => sum + run.applied, 0)).toBe(1200);
    for (const agent of agents) expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    const mine = await server.request("GET", "/betting/my-bets?limit=100", { key: agents[0]!.apiKey });
    expect(mine.body.data).toHaveLength(100);
    expect(mine.body.data.every((bet: { status: string }) => bet.status === "EXPIRED")).toBe(true);
    await expectLedgerOk(server);
  }, 120_000);
});

describe("only due items are read", () => {
  test("a subscription that is not due is not loaded by the charge job", async () => {
    const [payer, early, late] = [await server.register(), await server.register(), await server.register()];
    await server.deposit(payer.id, 100);
    const subscribe = (recipient: Agent) =>
      server.request("POST", "/subscriptions", { key: payer.apiKey, body: { recipientId: recipient.id, amount: 1, currency: "USDC", frequency: "DAILY" } });
    expect((await subscribe(early)).status).toBe(201);
    await server.advance(12 * 3600);
    expect((await subscribe(late)).status).toBe(201);

    const from = server.logs.length;
    await server.advance(12 * 3600 + 60);
    // Only the first is due (its second period); the second's comes 12 h later and is not read.
    expect(await runsOf("subscriptions.charge", from)).toEqual([expect.objectContaining({ loaded: 1, applied: 1, failed: 0 })]);
    expect(await server.balance(payer)).toEqual({ available: 97, held: 0 });
    await expectLedgerOk(server);
  });
});
