// What one POST /payments/send costs in CPU, in process: the whole app (auth, body, the write op in the
// group commit, the answer, the log) through `app.handle`, no HTTP, no wrk on the same cores. 64 funded
// agents pay each other, 32 payments at a time, an Idempotency-Key each (as the bench's wrk script).
//
//   bun test/bench/profile-payment.ts > /dev/null          CPU per payment, several rounds (report on stderr;
//                                                           stdout carries the request log)
//   bun --cpu-prof-md --cpu-prof-dir=/tmp/prof test/bench/profile-payment.ts > /dev/null   …and a profile
//
// PROFILE_PAYMENTS (per round, 4000), PROFILE_ROUNDS (5), DB_SYNCHRONOUS (FULL). It prints the CPU per
// payment of each round (the whole process, and the main thread alone: the machine's other load moves
// the first more), the CPU of each thread (main; JITWorker; "Bun Pool": the fdatasync; "Worker": the
// WAL checkpointer) and the statements one payment runs (SQL and mode) inside its savepoint.
// PROFILE_BREAKDOWN=1 adds a round that times each part of the group commit (every statement, the
// savepoints, COMMIT, the JavaScript around them).
import { dlopen, FFIType, ptr } from "bun:ffi";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PAYMENTS = Number(process.env.PROFILE_PAYMENTS ?? 4000);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 5);
const AGENTS = 64;
const AT_ONCE = 32;
const ADMIN = "profile-admin";

const dir = mkdtempSync(join(tmpdir(), "agentbank-profile-"));
Object.assign(process.env, {
  DATABASE_PATH: join(dir, "profile.db"),
  ADMIN_API_KEY: ADMIN,
  RATE_LIMIT_DEFAULT: "1000000000",
  RATE_LIMIT_PUBLIC: "1000000000",
  DB_SYNCHRONOUS: process.env.DB_SYNCHRONOUS ?? "FULL",
});
const { boot } = await import("../../src/boot");
const { createApp } = await import("../../src/app");
const { closeDatabase, sqliteEngine } = await import("../../src/db");
const { flushLog } = await import("../../src/http/log");
await boot();
const app = createApp();

async function call(path: string, body: unknown, key?: string, idempotencyKey?: string): Promise<any> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const response = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const agents: { id: string; apiKey: string }[] = [];
for (let i = 0; i < AGENTS; i++) {
  const registration = await call("/agents/register", { name: `profile-${i}`, ownerName: "profile", ownerEmail: `p${i}@example.com` });
  agents.push({ id: registration.agent.id, apiKey: registration.apiKey });
  await call("/admin/deposits", { agentId: registration.agent.id, amount: 1_000_000, currency: "USDC" }, ADMIN);
}

function payment() {
  const from = agents[Math.floor(Math.random() * AGENTS)]!;
  let to = from;
  while (to === from) to = agents[Math.floor(Math.random() * AGENTS)]!;
  return call("/payments/send", { toAgentId: to.id, amount: 0.01, currency: "USDC" }, from.apiKey, crypto.randomUUID());
}

async function send(count: number): Promise<void> {
  for (let done = 0; done < count; done += AT_ONCE) await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - done) }, payment));
}

/** The statements of one payment, as the engine runs them (SQL text, first line, and mode). */
async function statementsOfOnePayment(): Promise<string[]> {
  const engine = sqliteEngine() as unknown as { execute: (statement: { sql: string; mode: string }) => unknown };
  const execute = engine.execute;
  const seen: string[] = [];
  engine.execute = (statement) => {
    seen.push(`${statement.mode.padEnd(3)}  ${statement.sql.replace(/\s+/g, " ").slice(0, 110)}`);
    return execute(statement);
  };
  await payment();
  engine.execute = execute;
  return seen;
}

const libc = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
const timespec = new BigInt64Array(2);
/** This thread's CPU time in ms (CLOCK_THREAD_CPUTIME_ID; ~1.4 µs a call, so only around long parts). */
function threadCpuMs(): number {
  libc.symbols.clock_gettime(3, ptr(timespec));
  return Number(timespec[0]) * 1e3 + Number(timespec[1]) / 1e6;
}

/**
 * Where the group commit's time goes, per payment: each statement (by SQL text), the savepoints, BEGIN
 * and COMMIT, and the rest of flush (the op's JavaScript: generators, the cache's views, answers).
 */
async function flushBreakdown(count: number): Promise<[string, number][]> {
  const engine = sqliteEngine() as unknown as Record<string, any>;
  const spent = new Map<string, number>();
  const add = (what: string, ms: number) => spent.set(what, (spent.get(what) ?? 0) + ms);
  type Fn = (...args: any[]) => unknown;
  const timed = (fn: Fn, what: (...args: any[]) => string, clock: () => number = () => performance.now()): Fn => (...args) => {
    const start = clock();
    try {
      return fn(...args);
    } finally {
      add(what(...args), clock() - start);
    }
  };
  const originals = { execute: engine.execute, flush: engine.flush, exec: engine.connection.exec, savepoint: engine.savepoint.run, release: engine.release.run };
  engine.execute = timed(originals.execute, (statement: { sql: string; mode: string }) => `${statement.mode} ${statement.sql.replace(/\s+/g, " ").slice(0, 70)}`);
  // The group and its COMMIT in this thread's CPU time: their wall time also holds the moments another
  // thread (the fdatasync woken at the group's end, the checkpointer, other processes) had the core.
  engine.flush = timed(originals.flush.bind(engine), () => "flush (all)", threadCpuMs);
  engine.connection.exec = timed(originals.exec.bind(engine.connection), (sql: string) => sql, threadCpuMs);
  engine.savepoint.run = timed(originals.savepoint.bind(engine.savepoint), () => "SAVEPOINT");
  engine.release.run = timed(originals.release.bind(engine.release), () => "RELEASE");
  await send(count);
  Object.assign(engine, { execute: originals.execute, flush: originals.flush });
  engine.connection.exec = originals.exec;
  engine.savepoint.run = originals.savepoint;
  engine.release.run = originals.release;
  const all = spent.get("flush (all)")!;
  spent.delete("flush (all)");
  const parts = [...spent.values()].reduce((sum, ms) => sum + ms, 0);
  return [["flush, whole", all], ...[...spent].sort((a, b) => b[1] - a[1]), ["the rest of flush (JavaScript)", all - parts]].map(([what, ms]) => [what as string, ((ms as number) / count) * 1000]);
}

/** CPU ticks (1/100 s) of each of this process's threads, summed by thread name (the main one as "main"). */
function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const id of readdirSync("/proc/self/task")) {
    try {
      const name = id === String(process.pid) ? "main" : readFileSync(`/proc/self/task/${id}/comm`, "utf8").trim();
      const fields = readFileSync(`/proc/self/task/${id}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks.set(name, (ticks.get(name) ?? 0) + Number(fields[11]) + Number(fields[12])); // utime + stime
    } catch {} // a thread that ended meanwhile
  }
  return ticks;
}

await send(8000); // warm-up: the JIT settles after ~10,000 payments (its thread then idles), caches, the WAL
const statements = await statementsOfOnePayment();
const breakdown = process.env.PROFILE_BREAKDOWN ? await flushBreakdown(PAYMENTS) : [];
const ticksBefore = threadTicks();
const perPayment: number[] = [];
const mainPerPayment: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  flushLog();
  const cpu = process.cpuUsage();
  const main = threadCpuMs();
  await send(PAYMENTS);
  const used = process.cpuUsage(cpu);
  perPayment.push((used.user + used.system) / PAYMENTS);
  mainPerPayment.push(((threadCpuMs() - main) * 1000) / PAYMENTS);
}
const perThread = [...threadTicks()].map(([name, ticks]) => [name, ((ticks - (ticksBefore.get(name) ?? 0)) * 10_000) / (PAYMENTS * ROUNDS)] as const);
flushLog();
await closeDatabase();
rmSync(dir, { recursive: true, force: true });

if (breakdown.length > 0) console.error("group commit, µs per payment (timed, so a little slower; the group and COMMIT in CPU time, the rest in wall time):");
for (const [what, us] of breakdown) console.error(`  ${us.toFixed(1).padStart(6)}  ${what}`);
const figures = (perRound: number[]) => {
  const sorted = [...perRound].sort((a, b) => a - b);
  return `${perRound.map((us) => us.toFixed(0)).join(" / ")} µs; min ${sorted[0]!.toFixed(0)}, median ${sorted[Math.floor(ROUNDS / 2)]!.toFixed(0)} µs`;
};
console.error(`statements of one payment (${statements.length}, each in the op's savepoint):`);
for (const line of statements) console.error(`  ${line}`);
console.error(`CPU per payment, ${ROUNDS} rounds of ${PAYMENTS}, all threads: ${figures(perPayment)}`);
console.error(`                                 main thread: ${figures(mainPerPayment)}`);
console.error(`by thread (µs per payment, all rounds, in ticks of 10 ms): ${perThread.filter(([, us]) => us > 0).map(([name, us]) => `${name} ${us.toFixed(0)}`).join(", ")}`);
process.exit(0);
