// deploy/: the systemd units pass `systemd-analyze verify` with no warning (skipped, and said so, only
// where systemd-analyze is not installed), and the backup unit's command and docs/deploy.md's restore
// drill, run as written (paths moved into a temporary folder, sudo dropped), restore a backup taken
// while the service runs: migrations applied, ledger green.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./helpers/server";

setDefaultTimeout(60_000);

const ROOT = join(import.meta.dir, "..");
const DEPLOY = join(ROOT, "deploy");
const UNITS = ["agentbank.service", "agentbank-backup.service", "agentbank-backup.timer"];
const systemdAnalyze = Bun.which("systemd-analyze");
if (!systemdAnalyze) console.warn("test/deploy.test.ts: systemd-analyze is not installed (apt-get install systemd): the unit files are not verified");

let work: string;
/** A stand-in for /usr/local/bin/agentbank: this checkout's main.ts. */
let agentbank: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agentbank-deploy-"));
  agentbank = join(work, "bin/agentbank");
  mkdirSync(join(work, "bin"));
  writeFileSync(agentbank, `#!/bin/sh\nexec ${process.execPath} run ${join(ROOT, "src/main.ts")} "$@"\n`);
  chmodSync(agentbank, 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!systemdAnalyze)("systemd units", () => {
  test("systemd-analyze verify finds nothing to say about them", () => {
    // The one change: the binary's path, which verify checks for an executable.
    const units = mkdtempSync(join(work, "units-"));
    for (const unit of UNITS) writeFileSync(join(units, unit), readFileSync(join(DEPLOY, unit), "utf8").replaceAll("/usr/local/bin/agentbank", agentbank));
    const result = Bun.spawnSync([systemdAnalyze!, "verify", ...UNITS.map((unit) => join(units, unit))], { stdout: "pipe", stderr: "pipe" });
    expect({ code: result.exitCode, output: result.stdout.toString() + result.stderr.toString() }).toEqual({ code: 0, output: "" });
  });

  test("and it would say something about a mistake", () => {
    const units = mkdtempSync(join(work, "broken-"));
    writeFileSync(join(units, "agentbank.service"), readFileSync(join(DEPLOY, "agentbank.service"), "utf8").replaceAll("/usr/local/bin/agentbank", agentbank).replace("UMask=0077", "UMsk=0077"));
    const result = Bun.spawnSync([systemdAnalyze!, "verify", join(units, "agentbank.service")], { stdout: "pipe", stderr: "pipe" });
    expect(result.stderr.toString()).toContain("Unknown key 'UMsk'");
  });
});

test("the units keep the service's files to its user: umask 0077, its own user, the environment file", () => {
  for (const unit of ["agentbank.service", "agentbank-backup.service"]) {
    const text = readFileSync(join(DEPLOY, unit), "utf8");
    for (const line of ["User=agentbank", "UMask=0077", "StateDirectoryMode=0700", "EnvironmentFile=-/etc/agentbank/agentbank.env"]) expect({ unit, line, has: text.includes(`\n${line}\n`) }).toEqual({ unit, line, has: true });
  }
});

/** Shell text written for the real machine, moved into `state` and run without sudo. */
function onThisMachine(script: string, state: string): string {
  return script
    .replaceAll("sudo -u agentbank ", "")
    .replaceAll("sudo ", "")
    .replaceAll("/usr/local/bin/agentbank", agentbank)
    .replaceAll("/etc/agentbank/agentbank.env", join(work, "agentbank.env"))
    .replaceAll("/var/lib/agentbank", state);
}

test("the backup unit's command and the restore drill of docs/deploy.md restore a backup taken while the service runs", async () => {
  const state = join(work, "state");
  mkdirSync(join(state, "backups"), { recursive: true, mode: 0o700 });
  copyFileSync(join(DEPLOY, "agentbank.env"), join(work, "agentbank.env"));
  // The unit's database, on SQLite (the timer's backups are of the file), with some money moved.
  const server = await startServer({ postgres: undefined, env: { DATABASE_PATH: join(state, "agentbank.db") } });
  try {
    const [payer, payee] = [await server.register(), await server.register()];
    await server.deposit(payer.id, 50);
    expect((await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 12.5, currency: "USDC" } })).status).toBe(201);

    const unit = readFileSync(join(DEPLOY, "agentbank-backup.service"), "utf8");
    const command = /^ExecStart=\/bin\/sh -c '(.*)'$/m.exec(unit)![1]!.replaceAll("%%", "%");
    const backup = Bun.spawnSync(["sh", "-c", `umask 0077; ${onThisMachine(command, state)}`], { env: { PATH: process.env.PATH ?? "", DATABASE_PATH: join(state, "agentbank.db") }, stdout: "pipe", stderr: "pipe" });
    expect({ code: backup.exitCode, stderr: backup.stderr.toString() }).toEqual({ code: 0, stderr: "" });
    const copies = readdirSync(join(state, "backups"));
    expect(copies).toEqual([expect.stringMatching(/^agentbank-\d{8}T\d{6}Z\.db$/)]);
    expect(statSync(join(state, "backups", copies[0]!)).mode & 0o777).toBe(0o600);
  } finally {
    await server.close();
  }

  const guide = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
  const drill = guide.slice(guide.indexOf("### A restore drill"));
  const block = /```sh\n([\s\S]*?)```/.exec(drill)![1]!;
  const result = Bun.spawnSync(["sh", "-ec", onThisMachine(block, state)], { env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
  expect({ code: result.exitCode, stderr: result.stderr.toString() }).toEqual({ code: 0, stderr: "" });
  const report = JSON.parse(result.stdout.toString().trim().split("\n").at(-1)!);
  expect(report).toMatchObject({ into: join(state, "drill/agentbank.db"), ledgerOk: true });
  expect(report.entries).toBeGreaterThanOrEqual(2);
  // The drill cleans up after itself and leaves the service's own database alone.
  expect(readdirSync(state)).toContain("agentbank.db");
  expect(readdirSync(state)).not.toContain("drill");
});
