// bun run bench: the compiled server on a fresh database under wrk (Debian; installed here when
// missing), then the ledger's payment function without HTTP. Prints its figures; asserts nothing.
//   BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 50), BENCH_AGENTS (default 200)
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const ADMIN = "bench-admin";

function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.log("installing wrk (apt-get)…");
  Bun.spawnSync(["apt-get", "update", "-qq"], { stdout: "ignore", stderr: "ignore" });
  const install = Bun.spawnSync(["apt-get", "install", "-y", "-qq", "wrk"], { stdout: "ignore", stderr: "inherit" });
  if (install.exitCode !== 0 || !Bun.which("wrk")) throw new Error("wrk is needed: apt-get install wrk");
}

function ensureBinary(): string {
  const binary = join(ROOT, "dist/agentbank");
  if (!existsSync(binary) || process.env.BENCH_REBUILD) {
    const build = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
    if (build.exitCode !== 0) throw new Error("build failed");
  }
  return binary;
}

async function startServer(binary: string, dir: string) {
  const child = Bun.spawn([binary], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      DATABASE_PATH: join(dir, "bench.db"),
      ADMIN_API_KEY: ADMIN,
      RATE_LIMIT_DEFAULT: "1000000000",
      RATE_LIMIT_PUBLIC: "1000000000",
      DB_SYNCHRONOUS: process.env.DB_SYNCHRONOUS ?? "FULL",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let output = "";
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  // Keep draining the request log so the server never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  return { child, url: /listening on (http:\/\/\S+)/.exec(output)![1]! };
}

/** Database file plus its WAL, in bytes. */
const dbSize = (dir: string) =>
  statSync(join(dir, "bench.db")).size + (existsSync(join(dir, "bench.db-wal")) ? statSync(join(dir, "bench.db-wal")).size : 0);

function rssMb(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

type WrkResult = { requests: number; rps: number; p50: number; p99: number; non2xx: number; errors: string };

function wrk(url: string, script: string | null, seconds = SECONDS): WrkResult {
  const args = ["wrk", "-t2", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
  if (script) args.push("-s", script);
  const run = Bun.spawnSync([...args, url], { stdout: "pipe", stderr: "pipe" });
  const out = run.stdout.toString();
  const ms = (label: string) => {
    const match = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
  };
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms("50"),
    p99: ms("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: /Socket errors:.*/.exec(out)?.[0] ?? "",
  };
}

async function post(url: string, path: string, body: unknown, key?: string) {
  const response = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return response.json() as Promise<any>;
}

/** A wrk script: each request from a random agent to another random agent. */
function pairScript(dir: string, name: string, agents: { id: string; apiKey: string }[], path: string, body: string): string {
  const file = join(dir, `${name}.lua`);
  const rows = agents.map((agent) => `{"${agent.id}","${agent.apiKey}"}`).join(",\n");
  Bun.write(
    file,
    `local agents = {\n${rows}\n}
local n = #agents
request = function()
  local from = agents[math.random(n)]
  local to = agents[math.random(n)]
  while to == from do to = agents[math.random(n)] end
  local body = string.gsub('${body}', "TO", to[1])
  return wrk.format("POST", "${path}", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. from[2]}, body)
end
`,
  );
  return file;
}

function getScript(dir: string, name: string, key: string, path: string): string {
  const file = join(dir, `${name}.lua`);
  Bun.write(file, `wrk.headers["Authorization"] = "Bearer ${key}"\nwrk.path = "${path}"\n`);
  return file;
}

function table(rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

async function httpBench() {
  ensureWrk();
  const binary = ensureBinary();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-bench-"));
  const server = await startServer(binary, dir);
  try {
    const rssStart = rssMb(server.child.pid);
    const agents: { id: string; apiKey: string }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const registration = await post(server.url, "/agents/register", { name: `bench-${i}`, ownerName: "bench", ownerEmail: `b${i}@example.com` });
      agents.push({ id: registration.agent.id, apiKey: registration.apiKey });
      await post(server.url, "/admin/deposits", { agentId: registration.agent.id, amount: 1_000_000, currency: "USDC" }, ADMIN);
    }
    const dbBefore = dbSize(dir);

    const health = wrk(`${server.url}/health`, null);
    const payments = wrk(server.url, pairScript(dir, "payments", agents, "/payments/send", '{"toAgentId":"TO","amount":0.01,"currency":"USDC"}'));
    const dbAfter = dbSize(dir);
    const messages = wrk(server.url, pairScript(dir, "messages", agents, "/messages", '{"recipientId":"TO","subject":"bench","body":"hello"}'));
    const negotiations = wrk(server.url, pairScript(dir, "negotiations", agents, "/negotiations", '{"counterpartyId":"TO","subject":"bench","offer":{"amount":1}}'));
    const rssEnd = rssMb(server.child.pid);

    const check = await (await fetch(`${server.url}/admin/ledger/check`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as any;
    server.child.kill("SIGTERM");
    await server.child.exited;
    const completed = payments.requests - payments.non2xx;
    peakPayments = payments.rps;

    console.log(`\nHTTP (compiled server, DB_SYNCHRONOUS=${process.env.DB_SYNCHRONOUS ?? "FULL"}, wrk -t2 -c${CONNECTIONS} -d${SECONDS}s, ${AGENTS} agents)`);
    table([
      ["GET /health", `${health.rps.toFixed(0)} req/s  p50 ${health.p50.toFixed(2)} ms  p99 ${health.p99.toFixed(2)} ms`],
      ["POST /payments/send", `${payments.rps.toFixed(0)} req/s  p50 ${payments.p50.toFixed(2)} ms  p99 ${payments.p99.toFixed(2)} ms  (non-2xx ${payments.non2xx}) ${payments.errors}`],
      ["payments ÷ health", `${((payments.rps / health.rps) * 100).toFixed(1)} %`],
      ["POST /messages", `${messages.rps.toFixed(0)} req/s  p50 ${messages.p50.toFixed(2)} ms  p99 ${messages.p99.toFixed(2)} ms  (non-2xx ${messages.non2xx}: pair limit 20/h)`],
      ["POST /negotiations", `${negotiations.rps.toFixed(0)} req/s  p50 ${negotiations.p50.toFixed(2)} ms  p99 ${negotiations.p99.toFixed(2)} ms  (non-2xx ${negotiations.non2xx}: 3 open per pair)`],
      ["DB growth per payment", completed > 0 ? `${((dbAfter - dbBefore) / completed).toFixed(0)} bytes (${completed} payments)` : "n/a"],
      ["server RSS", `${rssStart.toFixed(0)} MB at start, ${rssEnd.toFixed(0)} MB after load`],
      ["ledger check", check.ok ? `ok (${check.entries} entries)` : "FAILED"],
    ]);
    if (!check.ok) process.exitCode = 1;
  } finally {
    server.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ledgerBench() {
  // In-process: the same pay() the route calls, through the group-commit writer, no HTTP.
  const dir = mkdtempSync(join(tmpdir(), "agentbank-ledger-bench-"));
  process.env.DATABASE_PATH = join(dir, "ledger.db");
  const { initConfig } = await import("../../src/config");
  const { openDatabase, write, closeDatabase } = await import("../../src/db");
  const { registerAgent } = await import("../../src/agents/service");
  const { deposit } = await import("../../src/ledger/transfers");
  const { pay } = await import("../../src/payments/service");
  const config = initConfig();
  await openDatabase(config);
  await (await import("../../src/chain")).initChain();
  const ids: string[] = [];
  await write(function* () {
    for (let i = 0; i < 100; i++) {
      const { id } = yield* registerAgent({ name: `l${i}`, ownerName: "o", ownerEmail: "o@example.com" }, null);
      yield* deposit(id, 1_000_000_000_000n, "USDC", { type: "deposit", id: `d${i}` });
      ids.push(id);
    }
  });
  const one = () => {
    const from = ids[Math.floor(Math.random() * ids.length)]!;
    let to = from;
    while (to === from) to = ids[Math.floor(Math.random() * ids.length)]!;
    return pay({ fromAgentId: from, toAgentId: to, amount: 10_000n, currency: "USDC", kind: "DIRECT" });
  };
  const rows: [string, string][] = [];
  for (const group of [1, 50]) {
    const total = group === 1 ? 2_000 : 50_000;
    const start = performance.now();
    for (let done = 0; done < total; done += group) {
      await Promise.all(Array.from({ length: group }, () => write(one)));
    }
    const seconds = (performance.now() - start) / 1000;
    rows.push([`pay() ${group === 1 ? "one per commit" : `${group} per commit`}`, `${(total / seconds).toFixed(0)} payments/s`]);
  }
  // Time inside the op alone (no commit): what one payment costs in SQLite statements.
  const { sqliteEngine } = await import("../../src/db");
  const { stepSync } = await import("../../src/db/query");
  const engine = sqliteEngine()!;
  const execute = (statement: { sql: string; params: unknown[]; mode: string }) => {
    const prepared = engine.connection.query(statement.sql);
    return statement.mode === "all" ? prepared.all(...(statement.params as never[])) : statement.mode === "get" ? prepared.get(...(statement.params as never[])) : prepared.run(...(statement.params as never[])).changes;
  };
  engine.connection.exec("BEGIN");
  const start = performance.now();
  for (let i = 0; i < 20_000; i++) stepSync(one(), execute, []);
  const perOpUs = ((performance.now() - start) / 20_000) * 1000;
  engine.connection.exec("ROLLBACK");
  rows.push(["pay() statements only, no commit", `${perOpUs.toFixed(1)} µs per payment`]);
  console.log(`\nLedger without HTTP (DB_SYNCHRONOUS=${config.dbSynchronous})`);
  table(rows);
  await closeDatabase();
  rmSync(dir, { recursive: true, force: true });
}

let peakPayments = 0;

/** History reads must not slow down as an agent's history grows: p99 at 10k rows vs 1M rows. */
async function historyBench() {
  ensureWrk();
  const binary = ensureBinary();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-history-"));
  const rows: [string, string][] = [];
  try {
    let server = await startServer(binary, dir);
    const registration = await post(server.url, "/agents/register", { name: "history", ownerName: "bench", ownerEmail: "h@example.com" });
    await post(server.url, "/admin/deposits", { agentId: registration.agent.id, amount: 1, currency: "USDC" }, ADMIN);
    const other = await post(server.url, "/agents/register", { name: "other", ownerName: "bench", ownerEmail: "o@example.com" });
    let seeded = 1;
    for (const target of [10_000, 1_000_000]) {
      server.child.kill("SIGTERM");
      await server.child.exited;
      const started = performance.now();
      seedHistory(join(dir, "bench.db"), registration.agent.id, other.agent.id, target - seeded);
      seeded = target;
      const seedSeconds = (performance.now() - started) / 1000;
      server = await startServer(binary, dir);
      const first = wrk(server.url, getScript(dir, "history-first", registration.apiKey, "/wallets/history?limit=20"), Math.min(SECONDS, 5));
      const deep = wrk(server.url, getScript(dir, "history-deep", registration.apiKey, "/wallets/history?limit=100&offset=5000"), Math.min(SECONDS, 5));
      rows.push([`history, ${target.toLocaleString("en")} rows (seeded in ${seedSeconds.toFixed(1)} s)`, `first page p50 ${first.p50.toFixed(2)} ms p99 ${first.p99.toFixed(2)} ms (${first.rps.toFixed(0)} req/s); offset 5000 p99 ${deep.p99.toFixed(2)} ms`]);
    }
    const check = await (await fetch(`${server.url}/admin/ledger/check`, { headers: { authorization: `Bearer ${ADMIN}` } })).json() as any;
    rows.push(["ledger check", check.ok ? `ok (${check.entries} entries)` : "FAILED"]);
    server.child.kill("SIGTERM");
    await server.child.exited;
    console.log("\nHistory reads (GET /wallets/history, one agent)");
    table(rows);
  } finally {
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

/** Payments at half the measured peak for BENCH_SOAK_SECONDS (default 600), RSS every minute. */
async function soakBench() {
  const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
  if (seconds <= 0) return;
  const binary = ensureBinary();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-soak-"));
  const server = await startServer(binary, dir);
  try {
    const agents: { id: string; apiKey: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const registration = await post(server.url, "/agents/register", { name: `soak-${i}`, ownerName: "bench", ownerEmail: `s${i}@example.com` });
      agents.push({ id: registration.agent.id, apiKey: registration.apiKey });
      await post(server.url, "/admin/deposits", { agentId: registration.agent.id, amount: 1_000_000, currency: "USDC" }, ADMIN);
    }
    const rate = Math.max(100, Math.round((peakPayments || 2000) / 2));
    const autocannon = (await import("autocannon")).default;
    const samples: string[] = [`0 min ${rssMb(server.child.pid).toFixed(0)} MB`];
    const timer = setInterval(() => samples.push(`${samples.length} min ${rssMb(server.child.pid).toFixed(0)} MB`), 60_000);
    const result = await autocannon({
      url: server.url,
      connections: 20,
      duration: seconds,
      overallRate: rate,
      requests: [
        {
          method: "POST",
          path: "/payments/send",
          setupRequest: (request: any) => {
            const from = agents[Math.floor(Math.random() * agents.length)]!;
            let to = from;
            while (to === from) to = agents[Math.floor(Math.random() * agents.length)]!;
            return { ...request, headers: { "content-type": "application/json", authorization: `Bearer ${from.apiKey}` }, body: JSON.stringify({ toAgentId: to.id, amount: 0.01, currency: "USDC" }) };
          },
        },
      ],
    });
    clearInterval(timer);
    samples.push(`end ${rssMb(server.child.pid).toFixed(0)} MB`);
    console.log(`\nSoak: payments at ${rate}/s target for ${seconds} s (autocannon, 20 connections)`);
    table([
      ["achieved", `${result.requests.average.toFixed(0)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors`],
      ["latency", `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`],
      ["server RSS", samples.join(", ")],
    ]);
  } finally {
    server.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv[2];
if (!only || only === "http") await httpBench();
if (!only || only === "history") await historyBench();
if (!only || only === "soak") await soakBench();
if (!only || only === "ledger") await ledgerBench();
