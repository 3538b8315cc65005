// Backups of the SQLite file while the service runs (`agentbank backup`, GET /admin/backup) and
// `agentbank restore`: the restored database passes the ledger check and holds the balances it had.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cli } from "./helpers/cli";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";

const work = mkdtempSync(join(tmpdir(), "agentbank-backup-test-"));
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(work, { recursive: true, force: true });
});

async function balancesOf(server: TestServer, agents: Agent[]) {
  return Promise.all(agents.map((agent) => server.balance(agent)));
}

describe.skipIf(TEST_POSTGRES !== undefined)("SQLite", () => {
  test("a backup taken under load restores to a database whose ledger holds", async () => {
    const server = await startServer({ postgres: undefined });
    servers.push(server);
    const agents = await Promise.all(Array.from({ length: 6 }, () => server.register()));
    for (const agent of agents) await server.deposit(agent.id, 1000);
    let paying = true;
    const load = (async () => {
      let n = 0;
      while (paying) {
        const [from, to] = [agents[n % 6]!, agents[(n + 1) % 6]!];
        await Promise.all(Array.from({ length: 8 }, () => server.request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount: 0.01, currency: "USDC" } })));
        n++;
      }
    })();
    const file = join(work, "under-load.db");
    await Bun.sleep(200);
    const backup = cli(["backup", file], { DATABASE_PATH: server.databasePath });
    paying = false;
    await load;
    expect([backup.code, backup.stderr]).toEqual([0, ""]);
    expect(JSON.parse(backup.stdout)).toMatchObject({ backup: file, bytes: expect.any(Number) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A backup never overwrites.
    expect(cli(["backup", file], { DATABASE_PATH: server.databasePath }).stderr).toContain("exists already");

    const target = join(work, "restored", "agentbank.db");
    // Without the custodial mnemonic the addresses in the backup cannot be derived: refused.
    const orphan = cli(["restore", file], { DATABASE_PATH: target });
    expect([orphan.code, orphan.stderr]).toEqual([1, expect.stringContaining("restore the mnemonic")]);
    // With it (backed up separately, as docs/operations.md says), the restore goes through.
    copyFileSync(join(dirname(server.databasePath), "agentbank.mnemonic"), join(work, "restored", "agentbank.mnemonic"));
    const restored = cli(["restore", file], { DATABASE_PATH: target });
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    expect(JSON.parse(restored.stdout)).toMatchObject({ ledgerOk: true });
  });

  test("restore → ledger check green → the balances of the moment of the backup", async () => {
    const server = await startServer({ postgres: undefined });
    servers.push(server);
    const [a, b] = [await server.register(), await server.register()];
    await server.deposit(a.id, 50);
    await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 12.5, currency: "USDC" } });
    const atBackup = await balancesOf(server, [a, b]);
    // The operator route: the same backup, as a download.
    const download = await fetch(`${server.url}/admin/backup`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/vnd.sqlite3");
    const file = join(work, "download.db");
    writeFileSync(file, new Uint8Array(await download.arrayBuffer()));
    // Life goes on after the backup...
    await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 10, currency: "USDC" } });
    expect(await balancesOf(server, [a, b])).not.toEqual(atBackup);
    // ...then the machine is lost: the backup is restored in place and the service started on it.
    await server.stop();
    const restored = cli(["restore", file], { DATABASE_PATH: server.databasePath });
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    await server.restart();
    await expectLedgerOk(server);
    expect(await balancesOf(server, [a, b])).toEqual(atBackup);
    expect((await server.request("GET", "/wallets/history", { key: b.apiKey })).body.pagination.total).toBe(1);
  });

  test("restore refuses a running database, a file that is not a backup, and a missing one", async () => {
    const server = await startServer({ postgres: undefined });
    servers.push(server);
    await server.register();
    const file = join(work, "refusals.db");
    expect(cli(["backup", file], { DATABASE_PATH: server.databasePath }).code).toBe(0);
    // The service is running: its WAL has content.
    await server.register();
    expect(cli(["restore", file], { DATABASE_PATH: server.databasePath }).stderr).toContain("stop the service first");
    const junk = join(work, "junk.db");
    writeFileSync(junk, "not a database");
    expect(cli(["restore", junk], { DATABASE_PATH: join(work, "x.db") }).stderr).toContain("not a readable SQLite database");
    expect(cli(["restore", join(work, "missing.db")], { DATABASE_PATH: join(work, "y.db") }).stderr).toContain("no backup at");
    expect(existsSync(join(work, "x.db"))).toBe(false);
    expect(cli(["backup"], {}).code).toBe(2);
  });
});

test("with DATABASE_URL, backup points to PostgreSQL's own tools", () => {
  const result = cli(["backup", join(work, "pg.db")], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/x" });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("pg_dump");
});
