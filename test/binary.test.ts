// The single executable: built with `bun build --compile`, run from an empty folder with nothing
// beside it, it creates its database, applies the embedded migrations and serves.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./helpers/wait";

const ROOT = join(import.meta.dir, "..");
let workDir: string;
let binary: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "agentbank-binary-"));
  binary = join(workDir, "agentbank");
  // The build users run (package.json "build": its entrypoints and flags), into this folder.
  const script = ((await Bun.file(join(ROOT, "package.json")).json()) as { scripts: { build: string } }).scripts.build;
  const command = script.slice(script.indexOf("bun build")).replace("dist/agentbank", binary).split(/\s+/);
  const build = Bun.spawnSync(command, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function run(cwd: string, env: Record<string, string>) {
  const child = Bun.spawn([binary], { cwd, env: { PATH: process.env.PATH ?? "", PORT: "0", ...env }, stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  let output = "";
  const deadline = Date.now() + 10_000;
  while (!/listening on (http:\/\/\S+)/.test(output) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    output += new TextDecoder().decode(value);
  }
  const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  return { child, url, output };
}

test("starts from an empty folder with its defaults, creates ./data/agentbank.db and answers /health", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const { child, url, output } = await run(cwd, {});
  try {
    expect(url).toBeDefined();
    const health = await (await fetch(`${url}/health`)).json();
    expect(health).toMatchObject({ status: "ok", version: "0.6.0" });
    expect(existsSync(join(cwd, "data/agentbank.db"))).toBe(true);
    expect(output).toContain("listening on http://127.0.0.1:");
  } finally {
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  }
});

test("applies the embedded migrations to a new DATABASE_PATH", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const databasePath = join(cwd, "nested/dir/bank.db");
  const { child, url } = await run(cwd, { DATABASE_PATH: databasePath });
  try {
    const reply = await fetch(`${url}/agents/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "bin", ownerName: "o", ownerEmail: "o@example.com" }),
    });
    expect(reply.status).toBe(201);
    expect(existsSync(databasePath)).toBe(true);
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
});

test("sends mail from the binary (nodemailer inside): with no SMTP_URL a message lands in ./data/outbox", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const { child, url } = await run(cwd, { ADMIN_API_KEY: "binary-admin" });
  try {
    const reply = await fetch(`${url}/admin/mail/test`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer binary-admin" },
      body: JSON.stringify({ to: "ops@example.com" }),
    });
    expect(reply.status).toBe(202);
    const { id } = (await reply.json()) as { id: string };
    const outbox = join(cwd, "data/outbox");
    const written = await waitFor(() => (existsSync(outbox) ? readdirSync(outbox).find((name) => name.endsWith(`_${id}.eml`)) : undefined));
    expect(readFileSync(join(outbox, written), "utf8")).toContain("Subject: agentbank: test message\r\n");
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
});

test("checkpoints the WAL into the database file on its worker thread (an entrypoint of the build)", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const databasePath = join(cwd, "bank.db");
  const { child, url } = await run(cwd, { DATABASE_PATH: databasePath });
  try {
    expect(url).toBeDefined();
    // The migrations went to the WAL (~0.5 MB); the writer's own checkpoint waits for 4,000 pages, the
    // worker's runs every 100 ms: only the worker can have copied them into the file by now.
    await Bun.sleep(1_000);
    expect(statSync(databasePath).size).toBeGreaterThan(100_000);
  } finally {
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  }
});

test("serves /metrics on METRICS_PORT from the binary (prom-client inside, loaded only then)", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port;
  probe.stop(true);
  const { child, url } = await run(cwd, { METRICS_PORT: String(port) });
  try {
    expect(url).toBeDefined();
    await fetch(`${url}/health`);
    const text = await waitFor(async () => {
      const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return body.includes('route="/health"') ? body : undefined;
    });
    expect(text).toContain("agentbank_sqlite_group_commit_ops_count");
  } finally {
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  }
});

test("serves its MCP tools, its OpenAPI document, the /swagger script and /llms.txt from the binary, and `agentbank mcp` speaks stdio", async () => {
  const cwd = mkdtempSync(join(workDir, "empty-"));
  const { child, url } = await run(cwd, {});
  try {
    const registration = await (
      await fetch(`${url}/agents/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "bin", ownerName: "o", ownerEmail: "o@example.com" }) })
    ).json() as { apiKey: string };
    const list = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${registration.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(40);
    expect(((await (await fetch(`${url}/swagger/json`)).json()) as { paths: object }).paths).toHaveProperty("/payments/send");
    const script = await fetch(`${url}/swagger/assets/scalar.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
    expect(await (await fetch(`${url}/llms.txt`)).text()).toContain("send_payment");
    const stdio = Bun.spawn([binary, "mcp", "--url", url!, "--key", registration.apiKey], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    stdio.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`);
    stdio.stdin.flush();
    const reader = stdio.stdout.getReader();
    const { value } = await reader.read();
    expect(JSON.parse(new TextDecoder().decode(value)).result.serverInfo.name).toBe("agentbank");
    stdio.kill();
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
});

test("a bad configuration value stops it with one line naming the variable", () => {
  const result = Bun.spawnSync([binary], { env: { PATH: process.env.PATH ?? "", PORT: "not-a-port" }, stdout: "pipe", stderr: "pipe" });
  expect(result.exitCode).toBe(1);
  expect(JSON.parse(result.stderr.toString())).toEqual({ level: "error", t: expect.any(String), msg: 'configuration error: PORT: expected a whole number from 0 to 65535, got "not-a-port"' });
  expect(result.stderr.toString().trimEnd().split("\n")).toHaveLength(1);
});

test("its command line needs nothing beside it: --version, help with every variable, one-line usage errors", async () => {
  const { VARIABLES } = await import("../src/config");
  const run = (...args: string[]) => {
    const result = Bun.spawnSync([binary, ...args], { cwd: workDir, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };
  expect(run("--version")).toEqual({ code: 0, stdout: "agentbank 0.6.0\n", stderr: "" });
  const help = run("--help");
  expect(help.code).toBe(0);
  for (const name of Object.keys(VARIABLES)) expect(help.stdout).toContain(`  ${name} `);
  expect(help.stdout).not.toContain("README");
  for (const command of ["serve", "dev", "mcp", "backup", "restore"]) expect(run(command, "--help")).toMatchObject({ code: 0, stderr: "" });
  const usage = run("mcp", "--nope");
  expect({ code: usage.code, stdout: usage.stdout, line: JSON.parse(usage.stderr) }).toEqual({ code: 2, stdout: "", line: { level: "error", t: expect.any(String), msg: "Unknown option '--nope' (agentbank mcp --help)" } });
});
