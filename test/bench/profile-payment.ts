// What one POST /payments/send costs in CPU, in process: the whole app (auth, body, the write op in the
// group commit, the answer, the log) through `app.handle`, no HTTP, no wrk on the same cores. 64 funded
// agents pay each other, 32 payments at a time, an Idempotency-Key each (as the bench's wrk script).
//
//   bun test/bench/profile-payment.ts > /dev/null          CPU per payment (report on stderr; stdout
//                                                           carries the request log)
//   bun --cpu-prof-md --cpu-prof-dir=/tmp/prof test/bench/profile-payment.ts > /dev/null   …and a profile
//   PROFILE_BASELINE=/path/to/another/checkout bun test/bench/profile-payment.ts > /dev/null
//
// Per round, the CPU per payment of the whole process and of the main thread, and of the main thread's
// part the group commit (flush in src/db/sqlite.ts) and its COMMIT. Then the CPU of each thread (main;
// JITWorker; "Bun Pool": the fdatasync; "Worker": the WAL checkpointer) and the statements one payment
// runs (SQL and mode) inside its savepoint. PROFILE_BREAKDOWN=1 adds a round that times each statement
// of the group commit; PROFILE_WAL=1 one that counts the WAL frames a payment writes, by B-tree (what
// COMMIT writes: its cost is per frame). PROFILE_BASELINE: that checkout's app runs in the same process, rounds
// alternating, and the paired differences are printed: on a machine whose load moves (this one's CPU
// per payment moves ±20 % between runs minutes apart) only a comparison made this way shows changes of
// a few percent; two identical builds still differ by up to ~15 µs per payment in it.
// PROFILE_PAYMENTS (per round, 3000), PROFILE_ROUNDS (5, or 12 with a baseline), DB_SYNCHRONOUS (FULL).
import { dlopen, FFIType, ptr } from "bun:ffi";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BASELINE = process.env.PROFILE_BASELINE;
const PAYMENTS = Number(process.env.PROFILE_PAYMENTS ?? 3000);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? (BASELINE ? 12 : 5));
const AGENTS = 64;
const AT_ONCE = 32;
const ADMIN = "profile-admin";

const libc = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
const timespec = new BigInt64Array(2);
/** This thread's CPU time in ms (CLOCK_THREAD_CPUTIME_ID; ~1.4 µs a call, so only around long parts). */
function threadCpuMs(): number {
  libc.symbols.clock_gettime(3, ptr(timespec));
  return Number(timespec[0]) * 1e3 + Number(timespec[1]) / 1e6;
}

type Statement = { sql: string; mode: string };
/** What the script reaches inside the SQLite engine (private members, read and wrapped here only). */
type EngineInside = {
  execute: (statement: Statement) => unknown;
  flush: () => void;
  checkpointer: Worker | null;
  connection: { exec: (sql: string) => void; query: (sql: string) => { all: () => unknown[]; get: () => unknown } };
  savepoint: { run: () => void };
  release: { run: () => void };
};

/** One build's app in this process, on its own database, with 64 funded agents. */
async function start(root: string) {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-profile-"));
  Object.assign(process.env, {
    DATABASE_PATH: join(dir, "profile.db"),
    ADMIN_API_KEY: ADMIN,
    RATE_LIMIT_DEFAULT: "1000000000",
    RATE_LIMIT_PUBLIC: "1000000000",
    DB_SYNCHRONOUS: process.env.DB_SYNCHRONOUS ?? "FULL",
  });
  const { boot } = await import(join(root, "src/boot"));
  const { createApp } = await import(join(root, "src/app"));
  const { closeDatabase, sqliteEngine } = await import(join(root, "src/db"));
  const { flushLog } = await import(join(root, "src/http/log"));
  await boot();
  const app = createApp();
  const call = async (path: string, body: unknown, key?: string, idempotencyKey?: string): Promise<any> => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key) headers.authorization = `Bearer ${key}`;
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    const response = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const agents: { id: string; apiKey: string }[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const registration = await call("/agents/register", { name: `profile-${i}`, ownerName: "profile", ownerEmail: `p${i}@example.com` });
    agents.push({ id: registration.agent.id, apiKey: registration.apiKey });
    await call("/admin/deposits", { agentId: registration.agent.id, amount: 1_000_000, currency: "USDC" }, ADMIN);
  }
  const payment = () => {
    const from = agents[Math.floor(Math.random() * AGENTS)]!;
    let to = from;
    while (to === from) to = agents[Math.floor(Math.random() * AGENTS)]!;
    return call("/payments/send", { toAgentId: to.id, amount: 0.01, currency: "USDC" }, from.apiKey, crypto.randomUUID());
  };
  const send = async (count: number) => {
    for (let done = 0; done < count; done += AT_ONCE) await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - done) }, payment));
  };
  // The group commit's CPU (this thread's) and its COMMIT's: a few clock reads per group, not per statement.
  const engine = sqliteEngine() as EngineInside;
  const group = { flush: 0, commit: 0 };
  const flush = engine.flush.bind(engine);
  const exec = engine.connection.exec.bind(engine.connection);
  engine.flush = () => {
    const begun = threadCpuMs();
    flush();
    group.flush += threadCpuMs() - begun;
  };
  engine.connection.exec = (sql) => {
    const begun = threadCpuMs();
    exec(sql);
    if (sql === "COMMIT") group.commit += threadCpuMs() - begun;
  };
  const stop = async () => {
    flushLog();
    await closeDatabase();
    rmSync(dir, { recursive: true, force: true });
  };
  return { root, path: join(dir, "profile.db"), engine, payment, send, group, flushLog, stop };
}
type Side = Awaited<ReturnType<typeof start>>;

/** The statements of one payment, as the engine runs them (SQL text, first line, and mode). */
async function statementsOfOnePayment(side: Side): Promise<string[]> {
  const execute = side.engine.execute;
  const seen: string[] = [];
  side.engine.execute = (statement) => {
    seen.push(`${statement.mode.padEnd(8)}  ${statement.sql.replace(/\s+/g, " ").slice(0, 110)}`);
    return execute(statement);
  };
  await side.payment();
  side.engine.execute = execute;
  return seen;
}

/** Wall time of each statement of the group commit, by SQL text, and of the savepoints, per payment. */
async function statementTimes(side: Side): Promise<[string, number][]> {
  const spent = new Map<string, number>();
  const timed = <A extends unknown[]>(fn: (...args: A) => unknown, what: (...args: A) => string) => (...args: A) => {
    const begun = performance.now();
    try {
      return fn(...args);
    } finally {
      const key = what(...args);
      spent.set(key, (spent.get(key) ?? 0) + performance.now() - begun);
    }
  };
  const { engine } = side;
  const originals = { execute: engine.execute, savepoint: engine.savepoint.run, release: engine.release.run };
  engine.execute = timed(originals.execute, (statement) => `${statement.mode} ${statement.sql.replace(/\s+/g, " ").slice(0, 70)}`);
  engine.savepoint.run = timed(originals.savepoint.bind(engine.savepoint), () => "SAVEPOINT");
  engine.release.run = timed(originals.release.bind(engine.release), () => "RELEASE");
  await side.send(PAYMENTS);
  engine.execute = originals.execute;
  engine.savepoint.run = originals.savepoint;
  engine.release.run = originals.release;
  return [...spent].sort((a, b) => b[1] - a[1]).map(([what, ms]) => [what, (ms / PAYMENTS) * 1000]);
}

/**
 * The WAL frames (pages written at COMMIT) of one payment, by B-tree: the checkpointer stopped, the WAL
 * emptied, `count` payments sent, and every frame's page named by dbstat. Run last: the engine has no
 * checkpointer after it.
 */
async function walFrames(side: Side, count: number): Promise<[string, number][]> {
  const { engine } = side;
  engine.checkpointer?.terminate();
  engine.connection.exec("PRAGMA wal_autocheckpoint = 0");
  engine.connection.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  await side.send(count);
  const pageSize = Number((engine.connection.query("PRAGMA page_size").get() as { page_size: bigint }).page_size);
  const owners = new Map<number, string>();
  for (const { name, pageno } of engine.connection.query("SELECT name, pageno FROM dbstat").all() as { name: string; pageno: bigint }[]) owners.set(Number(pageno), name);
  const wal = readFileSync(`${side.path}-wal`);
  const frames = new Map<string, number>();
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    const owner = owners.get(wal.readUInt32BE(offset)) ?? "(freed)";
    frames.set(owner, (frames.get(owner) ?? 0) + 1);
  }
  return [...frames].sort((a, b) => b[1] - a[1]).map(([tree, n]) => [tree, n / count]);
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

const sides: Side[] = [await start(resolve(import.meta.dir, "../..")), ...(BASELINE ? [await start(resolve(BASELINE))] : [])];
const [self] = sides as [Side];
// Warm-up: the JIT settles after ~10,000 payments (its thread then idles), caches, the WAL.
for (const side of sides) await side.send(10_000);
const statements = await statementsOfOnePayment(self);
const times = process.env.PROFILE_BREAKDOWN ? await statementTimes(self) : [];

type Figures = { process: number[]; main: number[]; group: number[]; commit: number[] };
const figures = new Map<Side, Figures>(sides.map((side) => [side, { process: [], main: [], group: [], commit: [] }]));
const ticksBefore = threadTicks();
for (let round = 0; round < ROUNDS; round++) {
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
    side.flushLog();
    const of = figures.get(side)!;
    const group = { ...side.group };
    const cpu = process.cpuUsage();
    const main = threadCpuMs();
    await side.send(PAYMENTS);
    const used = process.cpuUsage(cpu);
    of.process.push((used.user + used.system) / PAYMENTS);
    of.main.push(((threadCpuMs() - main) * 1000) / PAYMENTS);
    of.group.push(((side.group.flush - group.flush) * 1000) / PAYMENTS);
    of.commit.push(((side.group.commit - group.commit) * 1000) / PAYMENTS);
  }
}
const perThread = [...threadTicks()].map(([name, ticks]) => [name, ((ticks - (ticksBefore.get(name) ?? 0)) * 10_000) / (PAYMENTS * ROUNDS * sides.length)] as const);
const frames = process.env.PROFILE_WAL ? await walFrames(self, PAYMENTS) : [];
for (const side of sides) await side.stop();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(0)} / ${median(values).toFixed(0)} / ${sorted.at(-1)!.toFixed(0)}`;
};
const rest = (of: Figures) => of.group.map((group, index) => group - of.commit[index]!);
console.error(`statements of one payment (${statements.length}, each in the op's savepoint):`);
for (const line of statements) console.error(`  ${line}`);
if (frames.length > 0) console.error(`WAL frames per payment: ${frames.reduce((sum, [, n]) => sum + n, 0).toFixed(2)}, by B-tree: ${frames.map(([tree, n]) => `${tree} ${n.toFixed(2)}`).join(", ")}`);
if (times.length > 0) console.error("wall time of each, µs per payment (timed, so a little slower):");
for (const [what, us] of times) console.error(`  ${us.toFixed(1).padStart(6)}  ${what}`);
console.error(`CPU µs per payment, min / median / max of ${ROUNDS} rounds of ${PAYMENTS}:`);
for (const side of sides) {
  const of = figures.get(side)!;
  console.error(`  ${side === self ? "this build" : `baseline ${side.root}`}`);
  console.error(`    process ${spread(of.process)}; main thread ${spread(of.main)}`);
  console.error(`    of it the group commit ${spread(of.group)}: COMMIT ${spread(of.commit)}, the rest (the ops, their savepoints) ${spread(rest(of))}`);
}
if (BASELINE) {
  const [mine, theirs] = [figures.get(self)!, figures.get(sides[1]!)!];
  const paired = (a: number[], b: number[]) => median(a.map((value, index) => value - b[index]!)).toFixed(1);
  console.error(`  this build minus the baseline, median of the rounds' differences: main thread ${paired(mine.main, theirs.main)}, group commit ${paired(mine.group, theirs.group)}, COMMIT ${paired(mine.commit, theirs.commit)}, the ops ${paired(rest(mine), rest(theirs))}`);
}
console.error(`by thread, µs per payment (ticks of 10 ms): ${perThread.filter(([, us]) => us > 0).map(([name, us]) => `${name} ${us.toFixed(0)}`).join(", ")}`);
process.exit(0);
