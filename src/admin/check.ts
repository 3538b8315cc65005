// GET /admin/ledger/check: every invariant at once. An orchestration, not an op: the database's
// invariants are read in one snapshot, then the chain's asked over the network. Every check records its
// outcome (the metrics' agentbank_ledger_check_ok), and a job runs one every LEDGER_CHECK_EVERY_MS, reading
// the SQLite file on a worker thread of its own: at a million payments the database's part reads for
// about four seconds, which the service's event loop must not wait through.
import { serviceSigners, type ServiceSigners } from "../chain/keys";
import { config } from "../config";
import { databaseKind, read, write } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { checkLedger } from "../ledger/check";
import { logLine } from "../log";
import { checkSales } from "../reconciliation/sales";
import { checkInFlight, reconcileChain } from "../reconciliation/service";
import { HOUR_MS } from "../time";

/** How often the job checks everything (wall clock: what it costs is real time, whatever the test clock says). */
export const LEDGER_CHECK_EVERY_MS = HOUR_MS;
const LAST_CHECK_KEY = "ledger_check_last";

/** The database's invariants: the ledger, money in flight, the x402 sales (a read; one snapshot). */
export function* checkDatabase(signers: ServiceSigners) {
  const ledger = yield* checkLedger();
  const inFlight = yield* checkInFlight();
  const x402Sales = yield* checkSales(signers);
  return { ledger, inFlight, x402Sales };
}
export type DatabaseCheck = ReturnType<typeof checkDatabase> extends Generator<unknown, infer T> ? T : never;

/** The worker's module: this file's sibling from source; in the executable, its path under src/ (see CHECKPOINTER in db/sqlite.ts). */
const WORKER = new URL(import.meta.url.startsWith("file:///$bunfs/") ? "./admin/check-worker.ts" : "./check-worker.ts", import.meta.url).href;

function checkOnWorker(path: string, signers: ServiceSigners): Promise<DatabaseCheck> {
  const worker = new Worker(WORKER);
  return new Promise<DatabaseCheck>((resolve, reject) => {
    worker.onmessage = ({ data }: MessageEvent<{ check: DatabaseCheck } | { error: string }>) => ("check" in data ? resolve(data.check) : reject(new Error(data.error)));
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ path, signers });
  }).finally(() => worker.terminate());
}

export async function checkEverything(onWorker = false) {
  const onFile = databaseKind() === "sqlite" && config.databasePath !== ":memory:";
  const started = performance.now();
  const { ledger, inFlight, x402Sales } = onWorker && onFile ? await checkOnWorker(config.databasePath, serviceSigners()) : await read(checkDatabase(serviceSigners()), true);
  const chain = await reconcileChain();
  // A chain that cannot be read now is reported, not counted as a mismatch.
  const check = { ...ledger, ok: ledger.ok && inFlight.ok && x402Sales.ok && chain.status !== "mismatch", inFlight, x402Sales, chain };
  const outcome = { ok: check.ok, at: Date.now(), seconds: (performance.now() - started) / 1000 };
  await write(() => setSetting(LAST_CHECK_KEY, JSON.stringify(outcome)));
  if (!check.ok) logLine({ level: "error", msg: "ledger check failed", ledger: ledger.ok, inFlight: inFlight.ok, x402Sales: x402Sales.ok, chain: chain.status });
  return check;
}

/** The last check's outcome: ok, when (wall clock, ms), how long it took (s); null before the first. */
export function* lastCheck() {
  const value = yield* getSetting(LAST_CHECK_KEY);
  return value === null ? null : (JSON.parse(value) as { ok: boolean; at: number; seconds: number });
}

const processStarted = Date.now();

/**
 * The job: checks everything once the last check, and this process's start, are LEDGER_CHECK_EVERY_MS
 * old. Not at start: a process that restarts often (or a test's) would pay a check each time; GET
 * /admin/ledger/check checks at once, and records it too.
 */
export async function checkPeriodically(): Promise<void> {
  const last = await read(lastCheck());
  if (Date.now() - Math.max(last?.at ?? 0, processStarted) < LEDGER_CHECK_EVERY_MS) return;
  await checkEverything(true);
}
