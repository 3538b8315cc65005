// `bun run bench references`: agentbank beside the reference servers of ../shared/reference (a folder
// beside the repository; skipped with a message when absent) in the same run, rounds alternating, at one
// connection count (REFERENCE_CONNECTIONS): p7 (a bare durable transfer) and p10 (p7 plus every write
// agentbank's rules make, LAYOUT=plain) beside agentbank on SQLite; p9 (the bare transfer as one
// interactive transaction) beside agentbank on PostgreSQL. Figures on the shared machine move ±30 % from
// one minute to the next: the ratios, measured round by round, are what this part is for.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { SQL } from "bun";
import { english, generateMnemonic } from "viem/accounts";
import { freePort, startCluster } from "../postgres/cluster";
import { writeVariants } from "./reference-variants";
import { cpuMicros, cpuMicrosByThread, spawnServer, type Server } from "./spawn";
import { median, pairScript, SECONDS, spread, wrk, type Agent, type Figure, type Run } from "./wrk";

/** The references' own wrk script uses 64 agents; agentbank gets as many, and an Idempotency-Key per payment like them. */
const REFERENCE_AGENTS = 64;
const REFERENCE_CONNECTIONS = 32;
const PAYMENT = '{"toAgentId":"TO","amount":0.01,"currency":"USDC"}';

export type Harness = {
  rounds: number;
  synchronous: string;
  startServer: (dir: string, env?: Record<string, string>) => Promise<Server>;
  fundedAgents: (url: string, count: number) => Promise<Agent[]>;
  ledgerCheck: (url: string) => Promise<string>;
  add: (key: string, what: string, note?: string) => Figure;
};

export const referenceFolder = join(import.meta.dir, "../../../shared/reference");

/** A reference server (`bun <file>`, a file of the reference folder or a variant's path), ready once it prints the port it listens on. */
async function startReference(file: string, dir: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const server = await spawnServer([process.execPath, isAbsolute(file) ? file : join(referenceFolder, file)], { cwd: dir, env: { PATH: process.env.PATH ?? "", PORT: String(port), ...env } }, new RegExp(`on (${port})`));
  return { ...server, url: `http://127.0.0.1:${port}` };
}

/** One wrk run, with the server's CPU per answered request, in all and by thread. */
async function measured(server: Server, script: string): Promise<Run & { cpuPerRequest: number; threads: Map<string, number> }> {
  const pid = server.child.pid!;
  const before = cpuMicros(pid);
  const threadsBefore = cpuMicrosByThread(pid);
  const run = await wrk([server.url], script, REFERENCE_CONNECTIONS, SECONDS);
  const answered = Math.max(1, run.requests);
  const threads = new Map<string, number>();
  for (const [name, micros] of cpuMicrosByThread(pid)) threads.set(name, (micros - (threadsBefore.get(name) ?? 0)) / answered);
  return { ...run, cpuPerRequest: (cpuMicros(pid) - before) / answered, threads };
}

type Side = { key: string; what: string; server: Server; script: string };
const cpu = new Map<string, number[]>();
/** side → thread name → CPU per payment of each round */
const cpuByThread = new Map<string, Map<string, number[]>>();
const ratios = new Map<string, { rps: number[]; p99: number[] }>();

/** Each round runs every side once, in turn; the ratio of agentbank to each reference is taken per round. */
async function rounds(harness: Harness, agentbank: Side, references: Side[]): Promise<void> {
  for (let round = 0; round < harness.rounds; round++) {
    const runs = new Map<string, Run>();
    for (const side of [...references, agentbank]) {
      const run = await measured(side.server, side.script);
      harness.add(side.key, side.what).runs.push(run);
      cpu.set(side.what, [...(cpu.get(side.what) ?? []), run.cpuPerRequest]);
      const threads = cpuByThread.get(side.what) ?? new Map<string, number[]>();
      for (const [name, micros] of run.threads) threads.set(name, [...(threads.get(name) ?? []), micros]);
      cpuByThread.set(side.what, threads);
      runs.set(side.key, run);
    }
    const ours = runs.get(agentbank.key)!;
    for (const reference of references) {
      const theirs = runs.get(reference.key)!;
      const ratio = ratios.get(`${agentbank.what} ÷ ${reference.what}`) ?? { rps: [], p99: [] };
      ratio.rps.push(ours.rps / theirs.rps);
      ratio.p99.push(ours.p99 / theirs.p99);
      ratios.set(`${agentbank.what} ÷ ${reference.what}`, ratio);
    }
  }
}

async function sqliteReferences(harness: Harness): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-references-"));
  const sync = { SYNC: harness.synchronous };
  const servers: Server[] = [];
  try {
    const p7 = await startReference("p7-transfer.ts", dir, { ...sync, DB: join(dir, "p7.db"), IDEM: "append" });
    servers.push(p7);
    const p10 = await startReference("p10-rules.ts", dir, { ...sync, DB: join(dir, "p10.db"), LAYOUT: "plain" });
    servers.push(p10);
    const p10Schema = await startReference(writeVariants(referenceFolder, dir).p10Schema, dir, { ...sync, DB: join(dir, "p10-schema.db"), LAYOUT: "plain" });
    servers.push(p10Schema);
    const ours = await harness.startServer(dir);
    servers.push(ours);
    const script = pairScript(dir, "references-payments", await harness.fundedAgents(ours.url, REFERENCE_AGENTS), "/payments/send", PAYMENT, true);
    const pay = join(referenceFolder, "pay.lua");
    await rounds(harness, { key: "ref-agentbank", what: "agentbank, SQLite (-c32)", server: ours, script }, [
      { key: "ref-p7", what: "p7 (bare transfer, -c32)", server: p7, script: pay },
      { key: "ref-p10", what: "p10 (agentbank's writes, LAYOUT=plain, -c32)", server: p10, script: pay },
      { key: "ref-p10-schema", what: "p10 + agentbank's schema (reference-variants.ts, -c32)", server: p10Schema, script: pay },
    ]);
    console.log(`references, sqlite: agentbank ${await harness.ledgerCheck(ours.url)}`);
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresReferences(harness: Harness): Promise<void> {
  const cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-references-pg-"));
  const admin = new SQL(cluster.url);
  const servers: Server[] = [];
  const database = (name: string) => {
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  try {
    await admin.unsafe("CREATE DATABASE bench");
    await admin.unsafe("CREATE DATABASE reference");
    await admin.unsafe("CREATE DATABASE reference_rules");
    const p9 = await startReference("p9-pg-transfer.ts", dir, { PG_URL: database("reference") });
    servers.push(p9);
    const p9Rules = await startReference(writeVariants(referenceFolder, dir).p9Rules, dir, { PG_URL: database("reference_rules") });
    servers.push(p9Rules);
    const ours = await harness.startServer(dir, { DATABASE_URL: database("bench"), MASTER_MNEMONIC: generateMnemonic(english) });
    servers.push(ours);
    const script = pairScript(dir, "references-payments", await harness.fundedAgents(ours.url, REFERENCE_AGENTS), "/payments/send", PAYMENT, true);
    await rounds(harness, { key: "ref-agentbank-pg", what: "agentbank, PostgreSQL (-c32)", server: ours, script }, [
      { key: "ref-p9", what: "p9 (bare transfer, PostgreSQL, -c32)", server: p9, script: join(referenceFolder, "pay.lua") },
      { key: "ref-p9-rules", what: "p9 + the rules' writes, pipelined (reference-variants.ts, -c32)", server: p9Rules, script: join(referenceFolder, "pay.lua") },
    ]);
    console.log(`references, postgres: agentbank ${await harness.ledgerCheck(ours.url)}`);
  } finally {
    for (const server of servers) await server.stop();
    await admin.close();
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function referencesBench(harness: Harness): Promise<void> {
  if (!existsSync(join(referenceFolder, "pay.lua"))) {
    console.log(`references: skipped, no reference servers at ${referenceFolder}`);
    return;
  }
  await sqliteReferences(harness);
  await postgresReferences(harness);
  console.log(`\nagentbank ÷ reference, round by round (wrk -t2 -c${REFERENCE_CONNECTIONS} -d${SECONDS}s, min / median / max)\n`);
  console.log("| ratio | req/s | p99 |");
  console.log("|---|---|---|");
  for (const [what, ratio] of ratios) console.log(`| ${what} | ${spread(ratio.rps, 2)} | ${spread(ratio.p99, 2)} |`);
  console.log("\nserver CPU per answered payment (all threads, /proc; PostgreSQL's own processes not counted), µs min / median / max\n");
  for (const [what, values] of cpu) {
    console.log(`- ${what}: ${spread(values, 0)}`);
    const threads = [...(cpuByThread.get(what) ?? [])].filter(([, values]) => Math.max(...values) >= 1);
    for (const [name, values] of threads.sort((a, b) => median(b[1]) - median(a[1]))) console.log(`  - ${name}: ${spread(values, 0)}`);
  }
}
