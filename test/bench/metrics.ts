// `bun run bench metrics`: what /metrics costs. Two servers on fresh SQLite files, one with metrics off and
// one with METRICS_PORT set and a scraper asking it every 5 s (as Prometheus would), loaded in turns in
// the same rounds: payments/s with metrics on should be within 5 % of off. Then the scrape itself at a
// million payments: the metrics server's database seeded with 1M payments (journal entries, postings,
// webhook events, as the payments route writes them) and scraped again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../postgres/cluster";
import type { Harness } from "./references";
import { cpuMicros, type Server } from "./spawn";
import { median, pairScript, spread, wrk } from "./wrk";

const PAYMENT = '{"toAgentId":"TO","amount":0.01,"currency":"USDC"}';
const SCRAPE_EVERY_MS = 5_000;
const SEEDED_PAYMENTS = 1_000_000;

/** Scrapes `url` every SCRAPE_EVERY_MS until stopped; answers each scrape's time in ms. */
function scraper(url: string) {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(url);
      await response.text();
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      times.push(performance.now() - started);
      await Bun.sleep(SCRAPE_EVERY_MS);
    }
  })();
  return { times, stop: async () => ((running = false), await loop) };
}

const ms = (values: number[]) => (values.length ? `median ${median(values).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (${values.length} scrapes)` : "no scrape");

export async function metricsBench({ rounds, startServer, fundedAgents, ledgerCheck, add, agents }: Harness & { agents: number }): Promise<void> {
  const dirs = [mkdtempSync(join(tmpdir(), "agentbank-bench-metrics-off-")), mkdtempSync(join(tmpdir(), "agentbank-bench-metrics-on-"))];
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const servers: Server[] = [];
  try {
    servers.push(await startServer(dirs[0]!), await startServer(dirs[1]!, { METRICS_PORT: String(metricsPort) }));
    const scripts = [];
    for (const [index, server] of servers.entries()) scripts.push(pairScript(dirs[index]!, "payments", await fundedAgents(server.url, agents), "/payments/send", PAYMENT));
    const scrapes: number[] = [];
    // Server CPU per payment: less at the mercy of whatever else runs on the machine than payments/s.
    const cpu: number[][] = [[], []];
    const sides = [
      ["metrics-off", "POST /payments/send, SQLite, metrics off"],
      ["metrics-on", "POST /payments/send, SQLite, METRICS_PORT scraped every 5 s"],
    ] as const;
    for (let round = 0; round < rounds; round++) {
      for (const [index, [key, what]] of sides.entries()) {
        const scraping = index === 1 ? scraper(metricsUrl) : null;
        const pid = servers[index]!.child.pid;
        const before = cpuMicros(pid);
        const run = await wrk([servers[index]!.url], scripts[index]!);
        await scraping?.stop();
        cpu[index]!.push((cpuMicros(pid) - before) / Math.max(1, run.requests));
        add(key, what).runs.push(run);
        scrapes.push(...(scraping?.times ?? []));
      }
    }
    const off = median(add("metrics-off", "").runs.map((run) => run.rps));
    const on = median(add("metrics-on", "").runs.map((run) => run.rps));
    add("metrics-off", "").note = `server CPU per payment ${spread(cpu[0]!, 0)} µs`;
    add("metrics-on", "").note = `${(((on - off) / off) * 100).toFixed(1)} % against off (median of ${rounds}); server CPU per payment ${spread(cpu[1]!, 0)} µs; scrapes under the load: ${ms(scrapes)}`;
    for (const server of servers) console.log(`metrics: ${await ledgerCheck(server.url)}`);

    // The scrape at a million payments.
    await servers[1]!.stop();
    const seeded = seedPayments(join(dirs[1]!, "bench.db"), SEEDED_PAYMENTS);
    servers[1] = await startServer(dirs[1]!, { METRICS_PORT: String(metricsPort) });
    const times: number[] = [];
    const readSeconds: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const text = await (await fetch(metricsUrl)).text();
      times.push(performance.now() - started);
      readSeconds.push(Number(/^agentbank_state_read_seconds (\S+)$/m.exec(text)![1]) * 1000);
    }
    console.log(`metrics: one scrape at ${seeded} payments (${SEEDED_PAYMENTS} seeded): ${ms(times)}; its database read ${ms(readSeconds)}; ${await ledgerCheck(servers[1]!.url)}`);
  } finally {
    for (const server of servers) await server.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  await hookCost(rounds);
}

/**
 * The per-request work alone, in-process: GET /health through createApp() without and with the HTTP
 * plugin, alternating, µs per request (a figure the machine's other load disturbs less than wrk's).
 */
async function hookCost(rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-bench-hook-"));
  process.env.DATABASE_PATH = join(dir, "hook.db");
  // The requests' own log lines (hundreds of thousands) are not the bench's output; both apps write them alike.
  process.env.LOG_LEVEL = "warn";
  try {
    const config = (await import("../../src/config")).initConfig();
    const { openDatabase, closeDatabase } = await import("../../src/db");
    await openDatabase(config);
    await (await import("../../src/chain")).initChain();
    const { createApp } = await import("../../src/app");
    const { httpMetrics } = await import("../../src/metrics/serve");
    const apps = [createApp(null), createApp({ http: httpMetrics, route: null })];
    const times: number[][] = [[], []];
    const count = 20_000;
    for (let round = 0; round < Math.max(rounds, 5); round++) {
      for (const [index, app] of apps.entries()) {
        const started = performance.now();
        for (let i = 0; i < count; i++) await app.handle(new Request("http://localhost/health"));
        times[index]!.push(((performance.now() - started) * 1000) / count);
      }
    }
    console.log(`metrics: GET /health in-process, µs per request: without the HTTP plugin ${spread(times[0]!, 1)}, with it ${spread(times[1]!, 1)}; medians differ by ${(median(times[1]!) - median(times[0]!)).toFixed(1)} µs`);
    await closeDatabase();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes `count` balanced payments between the two first agents into a stopped server's database, as
 * the route writes them (entry, two postings, the payee's webhook event, delivered or skipped); answers
 * how many payments the database then holds. Bench data only.
 */
function seedPayments(path: string, count: number): number {
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const db = new Database(path, { safeIntegers: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  const [from, to] = db.query("SELECT agent_id AS agentId FROM accounts WHERE kind = 'available' AND currency = 'USDC' AND agent_id IS NOT NULL ORDER BY id LIMIT 2").all() as { agentId: string }[];
  const account = (agentId: string) => (db.query("SELECT id FROM accounts WHERE agent_id = ? AND kind = 'available' AND currency = 'USDC'").get(agentId) as { id: bigint }).id;
  const [payer, payee] = [account(from!.agentId), account(to!.agentId)];
  const entry = db.prepare("INSERT INTO journal_entries (type, reference_type, reference_id, created_at) VALUES ('PAYMENT', 'payment', ?, ?) RETURNING id");
  const posting = db.prepare("INSERT INTO postings (entry_id, account_id, amount, currency, history_type, counterparty_id, history_agent_id, created_at) VALUES (?, ?, ?, 'USDC', ?, ?, ?, ?)");
  const event = db.prepare("INSERT INTO webhook_events (id, agent_id, event, data, status, created_at) VALUES (?, ?, 'payment.received', '{}', ?, ?)");
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const { id } = entry.get(`seed-${i}`, now) as { id: bigint };
      posting.run(id, payer, -1n, "PAYMENT_SENT", to!.agentId, from!.agentId, now);
      posting.run(id, payee, 1n, "PAYMENT_RECEIVED", from!.agentId, to!.agentId, now);
      event.run(`evt_seed_${i}`, to!.agentId, i % 2 ? "DELIVERED" : "SKIPPED", now);
    }
    db.query("UPDATE accounts SET balance = balance - ?, posting_count = posting_count + ? WHERE id = ?").run(BigInt(count), count, payer);
    db.query("UPDATE accounts SET balance = balance + ?, posting_count = posting_count + ? WHERE id = ?").run(BigInt(count), count, payee);
  })();
  const total = Number((db.query("SELECT COUNT(*) AS n FROM journal_entries WHERE type = 'PAYMENT'").get() as { n: bigint }).n);
  db.close();
  return total;
}
