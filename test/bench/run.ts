// bun run bench: the compiled server on fresh databases under wrk (Debian; installed here when missing),
// every figure BENCH_ROUNDS times (default 3), printed as one table of min / median / max:
//   health; payments on SQLite, on PostgreSQL with one instance and with two; messages; negotiations;
//   history first page and deep pages at 1M rows; agentbank beside the reference servers of
//   ../shared/reference (references.ts: the ratios to them, measured in the same rounds).
// `bun run bench <part>` runs one part: sqlite | postgres | history | references | baseline (only the
// before/after below) | ledger | soak | metrics (on against off in the same rounds; the last four only on request). BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_AGENTS (200), BENCH_ROUNDS (3),
// BENCH_POOL_SIZES (PostgreSQL pool sizes to compare, e.g. 8,16,32); BENCH_QUICK=1 is one 3 s round of
// each (a smoke run). Asserts nothing
// but the ledger check after each server. BENCH_BASELINE=<another agentbank executable> adds its SQLite
// payments, measured in the same rounds (before/after a change); BENCH_BASELINE_ENGINE=postgres runs
// that before/after on PostgreSQL, and BENCH_PG_DELAY_MS puts a delay on each direction between both
// builds and PostgreSQL (delay-proxy.ts: a database on another host, where round trips count).
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { english, generateMnemonic } from "viem/accounts";
import { startCluster } from "../postgres/cluster";
import { startDelayProxy } from "./delay-proxy";
import { referencesBench } from "./references";
import { cpuMicros, spawnServer, type Server } from "./spawn";
import { CONNECTIONS, ensureWrk, getScript, pairScript, printTable, QUICK, SECONDS, spread, wrk, type Agent, type Figure } from "./wrk";

const ROOT = join(import.meta.dir, "../..");
const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const ADMIN = "bench-admin";
const SYNCHRONOUS = process.env.DB_SYNCHRONOUS ?? "FULL";

function ensureBinary(): string {
  const binary = join(ROOT, "dist/agentbank");
  if (!existsSync(binary) || process.env.BENCH_REBUILD) {
    const build = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
    if (build.exitCode !== 0) throw new Error("build failed");
  }
  return binary;
}

function startServer(dir: string, env: Record<string, string> = {}, binary = ensureBinary()): Promise<Server> {
  const variables = {
    PATH: process.env.PATH ?? "",
    PORT: "0",
    DATABASE_PATH: join(dir, "bench.db"),
    ADMIN_API_KEY: ADMIN,
    RATE_LIMIT_DEFAULT: "1000000000",
    RATE_LIMIT_PUBLIC: "1000000000",
    DB_SYNCHRONOUS: SYNCHRONOUS,
    ...env,
  };
  return spawnServer([binary], { cwd: dir, env: variables }, /listening on (http:\/\/\S+)/);
}

async function post(url: string, path: string, body: unknown, key?: string) {
  const response = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return response.json() as Promise<any>;
}

async function fundedAgents(url: string, count: number): Promise<Agent[]> {
  const agents: Agent[] = [];
  for (let i = 0; i < count; i++) {
    const registration = await post(url, "/agents/register", { name: `bench-${i}`, ownerName: "bench", ownerEmail: `b${i}@example.com` });
    agents.push({ id: registration.agent.id, apiKey: registration.apiKey });
    await post(url, "/admin/deposits", { agentId: registration.agent.id, amount: 1_000_000, currency: "USDC" }, ADMIN);
  }
  return agents;
}

async function ledgerCheck(url: string): Promise<string> {
  const check = (await (await fetch(`${url}/admin/ledger/check`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any;
  if (!check.ok) process.exitCode = 1;
  return check.ok ? `ledger check ok (${check.entries} entries)` : "LEDGER CHECK FAILED";
}

const PAYMENT = '{"toAgentId":"TO","amount":0.01,"currency":"USDC"}';
const figure = (what: string, note?: string): Figure => ({ what, runs: [], note });
const figures = new Map<string, Figure>();
const add = (key: string, what: string, note?: string) => {
  const found = figures.get(key) ?? figure(what, note);
  figures.set(key, found);
  return found;
};

function rssMb(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** The embedded engine: one process, one file. */
async function sqliteBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-bench-"));
  const server = await startServer(dir);
  try {
    const agents = await fundedAgents(server.url, AGENTS);
    const dbBytes = () => statSync(join(dir, "bench.db")).size + (existsSync(join(dir, "bench.db-wal")) ? statSync(join(dir, "bench.db-wal")).size : 0);
    const payments = pairScript(dir, "payments", agents, "/payments/send", PAYMENT);
    const messages = pairScript(dir, "messages", agents, "/messages", '{"recipientId":"TO","subject":"bench","body":"hello"}');
    const negotiations = pairScript(dir, "negotiations", agents, "/negotiations", '{"counterpartyId":"TO","subject":"bench","offer":{"amount":1}}');
    let paid = 0;
    const before = dbBytes();
    for (let round = 0; round < ROUNDS; round++) {
      add("health", "GET /health").runs.push(await wrk([`${server.url}/health`], null));
      const run = await wrk([server.url], payments);
      paid += run.requests - run.non2xx;
      add("sqlite", "POST /payments/send, SQLite").runs.push(run);
    }
    const growth = paid > 0 ? `${((dbBytes() - before) / paid).toFixed(0)} bytes of database per payment` : "";
    add("sqlite", "POST /payments/send, SQLite").note = growth;
    for (let round = 0; round < ROUNDS; round++) {
      add("messages", "POST /messages, SQLite", "non-2xx: the 20 per pair per hour limit").runs.push(await wrk([server.url], messages));
    }
    // Negotiations fill each pair's 3 open slots; every round adds new pairs' worth of agents.
    for (let round = 0; round < ROUNDS; round++) {
      add("negotiations", "POST /negotiations, SQLite", "non-2xx: 3 open per pair").runs.push(await wrk([server.url], negotiations));
    }
    console.log(`sqlite: ${await ledgerCheck(server.url)}; server RSS ${rssMb(server.child.pid as number).toFixed(0)} MB after the load`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (process.env.BENCH_BASELINE) await baselineBench(process.env.BENCH_BASELINE);
}

/** A fresh database on the cluster for each build, reached through `port` (the cluster's, or a proxy's). */
async function postgresDatabases(clusterUrl: string, port: number, names: string[]): Promise<Record<string, string>[]> {
  const admin = new SQL(clusterUrl);
  const envs = [];
  for (const name of names) {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(clusterUrl);
    url.pathname = `/${name}`;
    url.port = String(port);
    envs.push({ DATABASE_URL: url.toString(), MASTER_MNEMONIC: generateMnemonic(english) });
  }
  await admin.close();
  return envs;
}

/**
 * The same payments against another build, alternating rounds with this one, for a before/after: on
 * SQLite, or on PostgreSQL (BENCH_BASELINE_ENGINE=postgres; BENCH_PG_DELAY_MS: through a delaying proxy).
 */
async function baselineBench(binary: string): Promise<void> {
  const cluster = process.env.BENCH_BASELINE_ENGINE === "postgres" ? await startCluster() : null;
  const delayMs = Number(process.env.BENCH_PG_DELAY_MS ?? 0);
  const proxy = cluster && delayMs > 0 ? startDelayProxy(Number(new URL(cluster.url).port), delayMs) : null;
  const engine = cluster ? `PostgreSQL${proxy ? `, ${delayMs} ms each way` : ""}` : "SQLite";
  const dirs = [mkdtempSync(join(tmpdir(), "agentbank-bench-now-")), mkdtempSync(join(tmpdir(), "agentbank-bench-base-"))];
  const servers: Server[] = [];
  try {
    const envs = cluster ? await postgresDatabases(cluster.url, proxy?.port ?? Number(new URL(cluster.url).port), ["bench_now", "bench_base"]) : [{}, {}];
    servers.push(await startServer(dirs[0]!, envs[0]), await startServer(dirs[1]!, envs[1], binary));
    const scripts = [];
    for (const [index, server] of servers.entries()) scripts.push(pairScript(dirs[index]!, "payments", await fundedAgents(server.url, AGENTS), "/payments/send", PAYMENT));
    const cpu: number[][] = [[], []];
    const sides = [
      ["baseline-now", `POST /payments/send, ${engine}, this build (beside the baseline)`],
      ["baseline-base", `POST /payments/send, ${engine}, baseline ${binary}`],
    ] as const;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, [key, what]] of sides.entries()) {
        const pid = servers[index]!.child.pid;
        const before = cpuMicros(pid);
        const run = await wrk([servers[index]!.url], scripts[index]!);
        cpu[index]!.push((cpuMicros(pid) - before) / Math.max(1, run.requests));
        add(key, what).runs.push(run);
      }
    }
    for (const [index, [key]] of sides.entries()) add(key, "").note = `server CPU per payment ${spread(cpu[index]!, 0)} µs`;
    for (const server of servers) console.log(`baseline: ${await ledgerCheck(server.url)}`);
  } finally {
    for (const server of servers) await server.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    proxy?.stop();
    cluster?.stop();
  }
}

/** PostgreSQL from Debian's package on this machine, durable (fsync on): one instance, then two. */
async function postgresBench(): Promise<void> {
  const cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-bench-pg-"));
  const admin = new SQL(cluster.url);
  const servers: Server[] = [];
  try {
    await admin.unsafe("CREATE DATABASE bench");
    const url = new URL(cluster.url);
    url.pathname = "/bench";
    const env = { DATABASE_URL: url.toString(), MASTER_MNEMONIC: generateMnemonic(english) };
    servers.push(await startServer(dir, env));
    const agents = await fundedAgents(servers[0]!.url, AGENTS);
    const payments = pairScript(dir, "payments", agents, "/payments/send", PAYMENT);
    for (let round = 0; round < ROUNDS; round++) {
      add("pg1", "POST /payments/send, PostgreSQL, 1 instance").runs.push(await wrk([servers[0]!.url], payments));
    }
    // BENCH_POOL_SIZES=8,16,32: one instance again at each pool size (DB_POOL_SIZE), to choose the default.
    for (const size of (process.env.BENCH_POOL_SIZES ?? "").split(",").filter(Boolean)) {
      const sized = await startServer(dir, { ...env, DB_POOL_SIZE: size });
      try {
        for (let round = 0; round < ROUNDS; round++) {
          add(`pg1-pool${size}`, `POST /payments/send, PostgreSQL, 1 instance, DB_POOL_SIZE=${size}`).runs.push(await wrk([sized.url], payments));
        }
      } finally {
        await sized.stop();
      }
    }
    servers.push(await startServer(dir, env));
    for (let round = 0; round < ROUNDS; round++) {
      add("pg2", "POST /payments/send, PostgreSQL, 2 instances", "wrk splits the connections over both").runs.push(await wrk(servers.map((s) => s.url), payments));
    }
    console.log(`postgres: ${await ledgerCheck(servers[1]!.url)}`);
  } finally {
    for (const server of servers) await server.stop();
    await admin.close();
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** History reads at 1M rows for one agent: the first page, a deep page by offset, the same by cursor. */
async function historyBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-history-"));
  let server = await startServer(dir);
  try {
    const registration = await post(server.url, "/agents/register", { name: "history", ownerName: "bench", ownerEmail: "h@example.com" });
    await post(server.url, "/admin/deposits", { agentId: registration.agent.id, amount: 1, currency: "USDC" }, ADMIN);
    const other = await post(server.url, "/agents/register", { name: "other", ownerName: "bench", ownerEmail: "o@example.com" });
    await server.stop();
    seedHistory(join(dir, "bench.db"), registration.agent.id, other.agent.id, 1_000_000);
    server = await startServer(dir);
    const key = registration.apiKey as string;
    const seconds = Math.min(SECONDS, 5);
    // The cursor of the same deep page: the 5,000th entry's id.
    const deep = (await (await fetch(`${server.url}/wallets/history?limit=1&offset=4999`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    const after = deep.data[0].id as string;
    for (let round = 0; round < ROUNDS; round++) {
      add("history-first", "GET /wallets/history?limit=100, 1M rows").runs.push(await wrk([server.url], getScript(dir, "first", key, "/wallets/history?limit=100"), CONNECTIONS, seconds));
      add("history-offset", "GET /wallets/history?limit=100&offset=5000, 1M rows", "OFFSET walks the skipped rows").runs.push(
        await wrk([server.url], getScript(dir, "offset", key, "/wallets/history?limit=100&offset=5000"), CONNECTIONS, seconds),
      );
      add("history-after", "GET /wallets/history?limit=100&after=<5,000th id>, 1M rows", "the same page by cursor: one index seek").runs.push(
        await wrk([server.url], getScript(dir, "after", key, `/wallets/history?limit=100&after=${after}`), CONNECTIONS, seconds),
      );
    }
    console.log(`history: ${await ledgerCheck(server.url)}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bulk-writes balanced deposit entries into a stopped server's database (bench data only). */
function seedHistory(path: string, agentId: string, counterpartyId: string, count: number) {
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const db = new Database(path, { safeIntegers: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  const account = (db.query("SELECT id FROM accounts WHERE agent_id = ? AND kind = 'available' AND currency = 'USDC'").get(agentId) as { id: bigint }).id;
  const external = (db.query("SELECT id FROM accounts WHERE agent_id IS NULL AND kind = 'external' AND currency = 'USDC'").get() as { id: bigint }).id;
  const entry = db.prepare("INSERT INTO journal_entries (type, reference_type, reference_id, created_at) VALUES ('DEPOSIT', 'bench', ?, ?) RETURNING id");
  const posting = db.prepare("INSERT INTO postings (entry_id, account_id, amount, currency, history_type, counterparty_id, history_agent_id, created_at) VALUES (?, ?, ?, 'USDC', ?, ?, ?, ?)");
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const { id } = entry.get(`seed-${i}`, now) as { id: bigint };
      posting.run(id, external, -1n, "SYSTEM", agentId, null, now);
      posting.run(id, account, 1n, "DEPOSIT", counterpartyId, agentId, now);
    }
    db.query("UPDATE accounts SET balance = balance + ?, posting_count = posting_count + ? WHERE id = ?").run(BigInt(count), count, account);
    db.query("UPDATE accounts SET balance = balance - ?, posting_count = posting_count + ? WHERE id = ?").run(BigInt(count), count, external);
  })();
  db.close();
}

const part = process.argv[2];
const parts: Record<string, () => Promise<void>> = {
  sqlite: sqliteBench,
  postgres: postgresBench,
  history: historyBench,
  baseline: async () => {
    if (!process.env.BENCH_BASELINE) throw new Error("bench baseline: set BENCH_BASELINE=<another agentbank executable>");
    await baselineBench(process.env.BENCH_BASELINE);
  },
  references: () => referencesBench({ rounds: ROUNDS, synchronous: SYNCHRONOUS, startServer, fundedAgents, ledgerCheck, add }),
  ledger: async () => (await import("./ledger")).ledgerBench(),
  metrics: async () => (await import("./metrics")).metricsBench({ rounds: ROUNDS, synchronous: SYNCHRONOUS, startServer, fundedAgents, ledgerCheck, add, agents: AGENTS }),
  soak: async () => (await import("./soak")).soakBench(startServer, fundedAgents),
};
if (part && !parts[part]) throw new Error(`unknown part ${part}: ${Object.keys(parts).join(" | ")}`);
ensureWrk();
ensureBinary();
for (const name of part ? [part] : ["sqlite", "postgres", "history", "references"]) await parts[name]!();
printTable(
  `agentbank bench: wrk -t2 -c${CONNECTIONS} -d${SECONDS}s (history -d${Math.min(SECONDS, 5)}s), ${ROUNDS} rounds, ${AGENTS} agents, DB_SYNCHRONOUS=${SYNCHRONOUS}, ${navigator.hardwareConcurrency} cores shared with wrk`,
  [...figures.values()],
);
