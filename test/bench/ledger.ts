// `bun run bench ledger`: the ledger's payment function in-process, through the group-commit writer,
// without HTTP — what one payment costs the writer, by commit size and in statements alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentId } from "../../src/ids";

function table(rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

export async function ledgerBench() {
  // In-process: the same pay() the route calls, through the group-commit writer, no HTTP.
  const dir = mkdtempSync(join(tmpdir(), "agentbank-ledger-bench-"));
  process.env.DATABASE_PATH = join(dir, "ledger.db");
  const { initConfig } = await import("../../src/config");
  const { openDatabase, write, closeDatabase } = await import("../../src/db");
  const { registerAgent } = await import("../../src/agents/service");
  const { deposit } = await import("../../src/ledger/transfers");
  const { openAgentAccounts } = await import("../../src/ledger/ledger");
  const { pay } = await import("../../src/payments/service");
  const config = initConfig();
  await openDatabase(config);
  await (await import("../../src/chain")).initChain();
  const ids: AgentId[] = [];
  await write(function* () {
    for (let i = 0; i < 100; i++) {
      const { id } = yield* registerAgent({ name: `l${i}`, ownerName: "o", ownerEmail: "o@example.com" }, null, null);
      yield* openAgentAccounts(id);
      yield* deposit(id, 1_000_000_000_000n, "USDC", { type: "deposit", id: `d${i}` });
      ids.push(id);
    }
  });
  const one = () => {
    const from = ids[Math.floor(Math.random() * ids.length)]!;
    let to = from;
    while (to === from) to = ids[Math.floor(Math.random() * ids.length)]!;
    return pay({ fromAgentId: from, toAgentId: to, amount: 10_000n, currency: "USDC", kind: "DIRECT", outflow: { kind: "PAYMENT", terms: {} } });
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
  let statements = 0;
  const engineExecute = (engine as unknown as { execute: (statement: unknown) => unknown }).execute;
  const execute = (statement: unknown) => {
    statements++;
    return engineExecute(statement);
  };
  engine.connection.exec("BEGIN");
  const start = performance.now();
  const view = engine.cache.view();
  for (let i = 0; i < 20_000; i++) stepSync(one(), execute, [], view);
  const perOpUs = ((performance.now() - start) / 20_000) * 1000;
  engine.connection.exec("ROLLBACK");
  rows.push(["pay() statements only, no commit", `${perOpUs.toFixed(1)} µs per payment, ${(statements / 20_000).toFixed(1)} statements each`]);
  console.log(`\nLedger without HTTP (DB_SYNCHRONOUS=${config.dbSynchronous})`);
  table(rows);
  await closeDatabase();
  rmSync(dir, { recursive: true, force: true });
}
