// The package as a user gets it: `npm pack`, installed in projects outside the checkout with `bun add`
// and with `npm install`, and there the README's client example on Bun and on Node, its harness example
// under `bun test`, a strict type check of both entries and the `agentbank` command.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const TSC = join(ROOT, "node_modules/.bin/tsc");
const README = await Bun.file(join(ROOT, "README.md")).text();
const { version } = (await Bun.file(join(ROOT, "package.json")).json()) as { version: string };
// Per test and per hook: npm install alone took 50–70 s on a loaded 2-core machine.
const SLOW = 180_000;

let work: string;
const projects = { bun: "", npm: "" };

async function run(command: string[], cwd: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr, output: stdout + stderr };
}

/** The first fenced code block of README.md after `marker`. */
function readmeExample(marker: string): string {
  const at = README.indexOf(marker);
  const block = /```\w*\n([\s\S]*?)```/.exec(README.slice(at));
  if (at < 0 || !block) throw new Error(`README.md has no example after "${marker}"`);
  return block[1]!;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agentbank-package-"));
  const pack = await run(["npm", "pack", "--pack-destination", work], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
  const tarball = join(work, `agentbank-${version}.tgz`);
  for (const manager of ["bun", "npm"] as const) {
    projects[manager] = join(work, `${manager}-project`);
    mkdirSync(projects[manager]);
    writeFileSync(join(projects[manager], "package.json"), JSON.stringify({ name: `consumer-${manager}`, private: true, type: "module" }));
  }
  const installs = await Promise.all([
    run(["bun", "add", tarball], projects.bun),
    run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", tarball], projects.npm),
  ]);
  for (const install of installs) if (install.code !== 0) throw new Error(`install failed:\n${install.output}`);
}, SLOW);
afterAll(() => rmSync(work, { recursive: true, force: true }), SLOW);

test("the README's harness example passes under `bun test` where the tarball was installed (bun add, npm install)", async () => {
  for (const project of Object.values(projects)) {
    writeFileSync(join(project, "harness.test.ts"), readmeExample("**Test harness.**"));
    // The example's own beforeAll starts the service: more than bun's 5 s default on a loaded machine.
    const result = await run(["bun", "test", "--timeout", "30000", "./harness.test.ts"], project);
    expect(result.output).toContain(" 1 pass");
    expect(result.code).toBe(0);
  }
}, SLOW);

test("the service from the installed `agentbank` command serves the /swagger script; the README's client example pays with it on Bun and on Node", async () => {
  const adminKey = `admin-${crypto.randomUUID()}`;
  // The bin as npx runs it: by its `#!/usr/bin/env node` line, which hands over to bun.
  const service = Bun.spawn([join(projects.npm, "node_modules/.bin/agentbank")], {
    cwd: work,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATABASE_PATH: join(work, "bank.db"), ADMIN_API_KEY: adminKey },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    let printed = "";
    const reader = service.stdout.getReader();
    while (!/listening on http:\/\/\S+/.test(printed)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`agentbank did not start: ${printed}${await new Response(service.stderr).text()}`);
      printed += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const url = /listening on (http:\/\/\S+)/.exec(printed)![1]!;

    const script = await fetch(`${url}/swagger/assets/scalar.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);

    const register = async (name: string) =>
      (await (
        await fetch(`${url}/agents/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, ownerName: "Owner", ownerEmail: `${name}@example.com` }) })
      ).json()) as { agent: { id: string }; apiKey: string };
    const [payer, payee] = [await register("payer"), await register("payee")];
    const deposit = await fetch(`${url}/admin/deposits`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ agentId: payer.agent.id, amount: 100, currency: "USDC" }),
    });
    expect(deposit.status).toBe(201);

    const example = readmeExample("**Typed client.**");
    for (const project of Object.values(projects)) {
      writeFileSync(join(project, "pay.mjs"), example);
      for (const runtime of ["bun", "node"]) {
        const paid = await run([runtime, "pay.mjs", payee.agent.id], project, { AGENTBANK_URL: url, AGENTBANK_API_KEY: payer.apiKey });
        expect({ runtime, project, code: paid.code, stderr: paid.stderr }).toEqual({ runtime, project, code: 0, stderr: "" });
      }
    }
    const balance = (await (await fetch(`${url}/wallets/balance`, { headers: { authorization: `Bearer ${payee.apiKey}` } })).json()) as { balances: { currency: string; available: number }[] };
    expect(balance.balances.find((entry) => entry.currency === "USDC")?.available).toBe(20);
  } finally {
    service.kill("SIGTERM");
  }
  // The launcher passed SIGTERM on to the service, which drained and exited cleanly.
  expect(await service.exited).toBe(0);
}, SLOW);

test("`tsc --strict` in the consumer's project reports nothing for a file that uses both entries", async () => {
  const consumer = `import { agentbankClient, type AgentbankClient, type paths } from "agentbank";
import { startAgentbank, type Agentbank, type TestAgent } from "agentbank/testing";

type Balances = paths["/wallets/balance"]["get"]["responses"][200]["content"]["application/json"]["balances"];
export async function pay(bank: AgentbankClient, toAgentId: string): Promise<string> {
  const { data, error } = await bank.POST("/payments/send", { body: { toAgentId, amount: 5, currency: "USDC" } });
  if (error) return \`\${error.error}: \${error.message}\`;
  return "id" in data ? data.id : data.approvalId;
}
export const client: AgentbankClient = agentbankClient("http://127.0.0.1:3000", { apiKey: "pp_example" });
export async function scenario(): Promise<[Agentbank, TestAgent, Balances]> {
  const bank = await startAgentbank();
  const agent = await bank.register();
  const { data } = await client.GET("/wallets/balance");
  return [bank, agent, data?.balances ?? []];
}
`;
  writeFileSync(join(projects.npm, "consumer.ts"), consumer);
  for (const options of [[], ["--module", "nodenext"]]) {
    const check = await run([TSC, "--strict", "--noEmit", ...options, "consumer.ts"], projects.npm);
    expect({ options, output: check.output }).toEqual({ options, output: "" });
    expect(check.code).toBe(0);
  }
}, SLOW);

test("agentbank/testing imported from Node says that it needs Bun", async () => {
  const result = await run(["node", "--input-type=module", "-e", 'import "agentbank/testing";'], projects.npm);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain("run your tests with `bun test`");
}, SLOW);

test.each(["--help", "--version"])("`agentbank %s` answers under bunx and under npx", async (flag) => {
  for (const [runner, project] of [["bunx", projects.bun], ["npx", projects.npm]] as const) {
    const result = await run([runner, "agentbank", flag], project);
    expect(result.output).toContain("agentbank");
    expect({ runner, code: result.code }).toEqual({ runner, code: 0 });
  }
}, SLOW);

test("the `agentbank` command under Node on a machine without Bun says that it needs Bun", async () => {
  const nodeOnly = join(work, "node-only");
  mkdirSync(nodeOnly);
  symlinkSync(Bun.which("node")!, join(nodeOnly, "node"));
  const result = await run([join(projects.npm, "node_modules/.bin/agentbank"), "--help"], projects.npm, { PATH: nodeOnly });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("runs on Bun");
}, SLOW);
