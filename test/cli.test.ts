// The command line as a person meets it: `bun run src/main.ts …` as a child process. Help on every
// command (options, every variable with its default, nothing pointing at a README the lone binary does
// not have), --version, one-JSON-line errors with exit status 2 (usage) or 1 (failure), the start log, and
// `agentbank dev`: its demo agents, the curl lines it prints and the README's "First five minutes",
// run as printed. (test/binary.test.ts runs the same help and version checks on the built binary.)
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { VARIABLES } from "../src/config";
import { COMMANDS } from "../src/cli/commands";
import { isLoopbackHost } from "../src/net/addresses";
import { startServer } from "./helpers/server";

setDefaultTimeout(60_000);

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src/main.ts");
const haveCurl = Bun.which("curl") !== null;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agentbank-cli-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the command line to its end (killed after 20 s: a command that should have stopped but serves), in `cwd`, with only the environment given (and PATH). */
function cli(args: string[], env: Record<string, string> = {}, cwd = work) {
  const result = Bun.spawnSync(["bun", "run", MAIN, ...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** What a failure must look like: one JSON line on stderr, nothing on stdout, no stack. */
function expectOneLine(result: ReturnType<typeof cli>, code: number, containing: string) {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: "" });
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toEqual([expect.stringContaining("")]);
  expect(JSON.parse(lines[0]!)).toEqual({ level: "error", t: expect.any(String), msg: expect.stringContaining(containing) });
}

describe("help and version", () => {
  test("--version, -v and version print the version", () => {
    for (const flag of ["--version", "-v", "version"]) expect(cli([flag])).toEqual({ code: 0, stdout: "agentbank 0.6.0\n", stderr: "" });
  });

  test("--help, -h and help list every command and every variable with its default, and need no README", () => {
    for (const flag of ["--help", "-h", "help"]) {
      const { code, stdout, stderr } = cli([flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      for (const command of Object.keys(COMMANDS)) expect(stdout).toContain(`agentbank ${command === "serve" ? "[serve]" : command}`);
      for (const [name, { default: fallback }] of Object.entries(VARIABLES)) {
        expect(stdout).toMatch(new RegExp(`\\n  ${name} +.*\\(default: ${(fallback || "unset").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)\\n`));
      }
      expect(stdout).not.toContain("README");
      expect(stdout).toContain("/swagger");
    }
  });

  test("every command answers --help and -h with its usage, options and environment", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      for (const flag of ["--help", "-h"]) {
        const { code, stdout, stderr } = cli([name, flag]);
        expect({ name, code, stderr }).toEqual({ name, code: 0, stderr: "" });
        expect(stdout).toStartWith(`usage: ${command.usage}\n`);
        for (const option of Object.keys(command.options)) expect(stdout).toContain(`--${option}`);
        for (const variable of command.variables) expect(stdout).toContain(`${variable} `);
        expect(stdout).not.toContain("README");
      }
      expect(cli(["help", name]).stdout).toBe(cli([name, "--help"]).stdout);
    }
    expect(cli(["mcp", "--help"]).stdout).toContain("AGENTBANK_API_KEY");
  });

  test("every variable config.ts reads is in the help's table, and in the README's", () => {
    const source = readFileSync(join(ROOT, "src/config.ts"), "utf8");
    const read = new Set([...source.matchAll(/env(?:\.|\[")([A-Z][A-Z0-9_]+)|env, "([A-Z][A-Z0-9_]+)"/g)].map((match) => match[1] ?? match[2]));
    expect(read.size).toBeGreaterThan(15);
    for (const name of read) expect(Object.keys(VARIABLES)).toContain(name!);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const name of Object.keys(VARIABLES)) expect({ name, inReadme: new RegExp(`^\\| [^|]*\\b${name}\\b`, "m").test(readme) }).toEqual({ name, inReadme: true });
  });
});

describe("errors: one line, exit 2 for usage and 1 for a failure", () => {
  test("wrong usage exits 2 and points at the help", () => {
    expectOneLine(cli(["transfer"]), 2, 'unknown command "transfer" (agentbank --help)');
    expectOneLine(cli(["help", "transfer"]), 2, 'unknown command "transfer"');
    expectOneLine(cli(["mcp", "--verbose"]), 2, "Unknown option '--verbose' (agentbank mcp --help)");
    expectOneLine(cli(["mcp", "--url"]), 2, "--url");
    expectOneLine(cli(["backup"]), 2, "expected 1 argument: agentbank backup <file>");
    expectOneLine(cli(["restore", "a.db", "b.db"]), 2, "agentbank restore <file>");
    expectOneLine(cli(["serve", "now"]), 2, 'unexpected argument "now" (agentbank serve --help)');
    expectOneLine(cli(["--port", "80"]), 2, "Unknown option '--port' (agentbank serve --help)");
    expectOneLine(cli(["version", "2"]), 2, 'unexpected argument "2"');
    expectOneLine(cli(["backup", join(work, "b.db")], { DATABASE_URL: "postgres://u@127.0.0.1:1/x" }), 2, "pg_dump");
  });

  test("a failure exits 1 with one line; LOG_LEVEL=debug adds the stack", async () => {
    // Any SQLite file can be backed up; the copy cannot be written where no folder is.
    const database = join(work, "any.db");
    new Database(database).run("CREATE TABLE t (x)");
    const intoNowhere = cli(["backup", join(work, "no/such/dir/copy.db")], { DATABASE_PATH: database });
    expectOneLine(intoNowhere, 1, "unable to open database");
    const debug = cli(["backup", join(work, "no/such/dir/copy.db")], { DATABASE_PATH: database, LOG_LEVEL: "debug" });
    expect(debug.code).toBe(1);
    expect(debug.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(debug.stderr)).toMatchObject({ level: "error", msg: expect.stringContaining("unable to open database"), stack: expect.stringMatching(/\n\s+at /) });
    expectOneLine(cli(["restore", join(work, "missing.db")], { DATABASE_PATH: join(work, "restored.db") }), 1, "no backup at");
    expectOneLine(cli(["serve"], { PORT: "99999" }), 1, "configuration error: PORT");
    // The facilitator's minimum payment: a positive USDC amount, at most 6 decimals (0 would let value-0 sales through).
    for (const value of ["0", "0.0000001", "1e-2"]) {
      expectOneLine(cli(["serve"], { X402_FACILITATOR_MIN_AMOUNT: value }), 1, `X402_FACILITATOR_MIN_AMOUNT: expected a positive USDC amount with at most 6 decimals (e.g. 0.01), got "${value}"`);
    }
    expectOneLine(cli(["backup", join(work, "c.db")], { LOG_LEVEL: "loud" }), 1, 'LOG_LEVEL: expected debug, info, warn or error, got "loud"');
  });

  test("mcp without a key says how to give one, on one line", () => {
    expectOneLine(cli(["mcp", "--url", "http://127.0.0.1:9"]), 1, "AGENTBANK_API_KEY");
  });
});

describe("start log", () => {
  test("names the API reference and says the operator routes are on", async () => {
    const server = await startServer();
    try {
      const log = server.logs.join("");
      expect(log).toContain(`API reference: ${server.url}/swagger`);
      expect(log).toContain("operator routes: on (ADMIN_API_KEY)");
      expect(log).toContain("POST /admin/deposits");
    } finally {
      await server.close();
    }
  });

  test("without ADMIN_API_KEY: says they are off and how to turn them on", async () => {
    const child = Bun.spawn(["bun", "run", MAIN], { cwd: work, env: { PATH: process.env.PATH ?? "", PORT: "0", DATABASE_PATH: join(work, "plain.db") }, stdout: "pipe", stderr: "pipe" });
    try {
      const log = await readUntil(child.stdout, /operator routes: .*\n/);
      expect(log).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ /);
      expect(log).toContain("/swagger");
      expect(log).toContain("operator routes: off");
      expect(log).toContain("set ADMIN_API_KEY to turn them on");
    } finally {
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    }
  });
});

/** Reads a stream until its text matches `pattern` (or 30 s pass); returns the text so far. */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 30_000;
  try {
    while (!pattern.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  } finally {
    reader.releaseLock();
  }
  return text;
}

/** Runs shell lines with `curl` printing each answer's body and status on lines of their own. */
function runShell(script: string, cwd: string): { bodies: any[]; statuses: number[] } {
  const wrapped = `set -e\ncurl() { command curl -w '\\n%{http_code}\\n' "$@"; }\n${script}`;
  const result = Bun.spawnSync(["sh", "-c", wrapped], { cwd, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
  expect({ code: result.exitCode, stderr: result.stderr.toString() }).toEqual({ code: 0, stderr: "" });
  const lines = result.stdout.toString().trim().split("\n");
  const bodies: any[] = [];
  const statuses: number[] = [];
  for (let index = 0; index < lines.length; index += 2) {
    bodies.push(JSON.parse(lines[index]!));
    statuses.push(Number(lines[index + 1]));
  }
  return { bodies, statuses };
}

describe.skipIf(!haveCurl)("agentbank dev", () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(join(work, "dev-"));
  });

  /** Starts `agentbank dev` in cwd and reads its banner to the end. */
  async function startDev(...args: string[]) {
    const child = Bun.spawn(["bun", "run", MAIN, "dev", ...args], { cwd, env: { PATH: process.env.PATH ?? "", PORT: "0" }, stdout: "pipe", stderr: "pipe" });
    const banner = await readUntil(child.stdout, /API reference: \S+\/swagger\n/);
    const stop = async () => {
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    };
    return { banner, stop, url: /listening on (http:\/\/\S+)/.exec(banner)![1]! };
  }

  test("a fresh dev database with two funded demo agents, and printed curl lines that work as printed", async () => {
    const { banner, stop, url } = await startDev();
    try {
      expect(banner).toContain("database      ./data/dev/agentbank.db (new)");
      expect(banner).toContain("test clock    on");
      expect(banner).toContain(`API reference: ${url}/swagger`);
      expect(banner).toContain("operator routes: on");
      const adminKey = /operator key  (\S+)/.exec(banner)![1]!;
      const [alice, bob] = [...banner.matchAll(/(demo-\w+)\s+id (\S+)\s+agent key (pp_\S+)\s+owner key (po_\S+)/g)].map(([, name, id, apiKey, ownerKey]) => ({ name, id: id!, apiKey: apiKey!, ownerKey: ownerKey! }));
      expect([alice?.name, bob?.name]).toEqual(["demo-alice", "demo-bob"]);
      const balance = async (key: string) => ((await (await fetch(`${url}/wallets/balance`, { headers: { authorization: `Bearer ${key}` } })).json()) as { balances: { currency: string; available: number }[] }).balances.find((entry) => entry.currency === "USDC")!.available;
      expect([await balance(alice!.apiKey), await balance(bob!.apiKey)]).toEqual([100, 100]);

      const printed = banner.split("\n").filter((line) => line.startsWith("  curl ")).join("\n");
      const run = runShell(printed, cwd);
      expect(run.statuses).toEqual([201, 201, 201, 200]);
      expect(run.bodies[2]).toMatchObject({ status: "COMPLETED", amount: 5 });
      expect([await balance(alice!.apiKey), await balance(bob!.apiKey)]).toEqual([120, 105]);

      // The MCP configuration it printed is valid JSON naming this service's /mcp with demo-alice's key.
      const mcp = JSON.parse(banner.split("\n").find((line) => line.includes('"mcpServers"'))!.trim());
      expect(mcp.mcpServers.agentbank).toEqual({ type: "http", url: `${url}/mcp`, headers: { Authorization: `Bearer ${alice!.apiKey}` } });

      // demo.env holds the same values, for the owner only.
      expect(statSync(join(cwd, "data/dev/demo.env")).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(cwd, "data/dev/demo.env"), "utf8")).toContain(`export ADMIN_KEY='${adminKey}'`);
      const check = await (await fetch(`${url}/admin/ledger/check`, { headers: { authorization: `Bearer ${adminKey}` } })).json();
      expect(check).toMatchObject({ ok: true });
    } finally {
      await stop();
    }
  });

  test("the README's First five minutes runs as written against it, on the existing dev database", async () => {
    const { banner, stop, url } = await startDev();
    try {
      expect(banner).toContain("./data/dev/agentbank.db (existing");
      const readme = readFileSync(join(ROOT, "README.md"), "utf8");
      const section = readme.slice(readme.indexOf("## First five minutes"), readme.indexOf("\n## ", readme.indexOf("## First five minutes") + 1));
      const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
      expect(blocks[0]).toContain("bun run dev");
      const run = runShell(blocks[1]!, cwd);
      expect(run.statuses).toEqual([201, 201, 201, 200]);
      expect(run.bodies[0]).toMatchObject({ apiKey: expect.stringMatching(/^pp_/), ownerKey: expect.stringMatching(/^po_/) });
      expect(run.bodies[3].data.map((entry: { type: string }) => entry.type)).toContain("PAYMENT_SENT");
      expect(url).toStartWith("http://127.0.0.1:");
    } finally {
      await stop();
    }
  });

  test("--fresh starts over from a new database", async () => {
    const { banner, stop } = await startDev("--fresh");
    try {
      expect(banner).toContain("./data/dev/agentbank.db (new)");
    } finally {
      await stop();
    }
  });
});

describe("agentbank dev listens on loopback only, unless --public", () => {
  test("a HOST that is not loopback, from the environment or a .env, stops it before anything starts: one JSON line, exit 2", () => {
    const fromEnv = mkdtempSync(join(work, "dev-host-"));
    const refused = cli(["dev"], { HOST: "0.0.0.0", PORT: "0" }, fromEnv);
    expectOneLine(refused, 2, "HOST is 0.0.0.0, not a loopback address");
    expect(refused.stderr).toContain("--public");
    expect(existsSync(join(fromEnv, "data/dev/agentbank.db"))).toBe(false);

    const fromDotEnv = mkdtempSync(join(work, "dev-dotenv-"));
    writeFileSync(join(fromDotEnv, ".env"), "HOST=192.168.1.20\n");
    expectOneLine(cli(["dev", "--fresh"], { PORT: "0" }, fromDotEnv), 2, "HOST is 192.168.1.20, not a loopback address");
    expect(existsSync(join(fromDotEnv, "data/dev/agentbank.db"))).toBe(false);
  });

  test("loopback is 127.0.0.0/8, ::1 and localhost; every other address or name is not", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost", "::ffff:127.0.0.1"]) expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.20", "8.8.8.8", "2001:db8::1", "example.com", "localhost.example.com", ""]) expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
  });

  test("--public starts there, with a warning line in the log", async () => {
    const cwd = mkdtempSync(join(work, "dev-public-"));
    const child = Bun.spawn(["bun", "run", MAIN, "dev", "--public"], { cwd, env: { PATH: process.env.PATH ?? "", PORT: "0", HOST: "0.0.0.0" }, stdout: "pipe", stderr: "pipe" });
    try {
      const printed = await readUntil(child.stdout, /API reference: \S+\/swagger\n/);
      expect(JSON.parse(printed.split("\n")[0]!)).toEqual({
        level: "warn",
        t: expect.any(String),
        msg: "agentbank dev: listening on HOST 0.0.0.0 (--public): the operator routes and the test clock are reachable from other machines",
        host: "0.0.0.0",
      });
      expect(printed).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+ /);
    } finally {
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    }
  });
});
