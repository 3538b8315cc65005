// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json) run
// against /mcp of a started service, for what protocol revisions 2026-07-28 and 2025-11-25 require of
// a server. Every required server scenario passes, but for the checks listed in NOT_APPLICABLE, each
// with its reason (docs/mcp.md repeats them): those call the suite's own fixture tools, prompts and
// resources (test_image_content, test://static-text, …), which agentbank does not have, or a feature
// a stateless server cannot offer. A failure outside that list fails the test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type TestServer } from "./helpers/server";

const ROOT = join(import.meta.dir, "..");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const REVISIONS = ["2026-07-28", "2025-11-25"] as const;

const FIXTURE_TOOL = "calls the suite's own fixture tool; agentbank's tools are its API's routes and answer JSON text";
const FIXTURE_PROMPT = "gets the suite's own fixture prompt; agentbank's prompts are checked in mcp-versions.test.ts";
const FIXTURE_RESOURCE = "reads the suite's own fixture resource (test://…); agentbank's resources are agentbank://… (mcp.test.ts)";
const ASKS_INPUT = "calls a fixture tool or prompt that asks the client for input (input_required, sampling, elicitation, roots); no agentbank tool asks its client for anything";

/** scenario, or scenario#check → why it cannot pass against agentbank. */
const NOT_APPLICABLE: Record<string, string> = {
  "tools-call-image": FIXTURE_TOOL,
  "tools-call-audio": FIXTURE_TOOL,
  "tools-call-embedded-resource": FIXTURE_TOOL,
  "tools-call-mixed-content": FIXTURE_TOOL,
  "tools-call-with-logging": FIXTURE_TOOL,
  "tools-call-with-progress": `${FIXTURE_TOOL}; the tools that wait (withdraw, pay_x402_resource) send progress: mcp-versions.test.ts`,
  "server-stateless#sep-2575-server-rejects-undeclared-capability": `${FIXTURE_TOOL} (test_missing_capability, which needs the client's sampling); no agentbank tool needs a client capability`,
  "server-stateless#sep-2575-missing-capability-http-400": `${FIXTURE_TOOL} (test_missing_capability)`,
  "tools-call-sampling": ASKS_INPUT,
  "tools-call-elicitation": ASKS_INPUT,
  "elicitation-sep1034-defaults": ASKS_INPUT,
  "elicitation-sep1330-enums": ASKS_INPUT,
  "input-required-result-basic-elicitation": ASKS_INPUT,
  "input-required-result-basic-sampling": ASKS_INPUT,
  "input-required-result-basic-list-roots": ASKS_INPUT,
  "input-required-result-capability-check": ASKS_INPUT,
  "input-required-result-multi-round": ASKS_INPUT,
  "input-required-result-multiple-input-requests": ASKS_INPUT,
  "input-required-result-non-tool-request": ASKS_INPUT,
  "input-required-result-request-state": ASKS_INPUT,
  "input-required-result-result-type": ASKS_INPUT,
  "input-required-result-tampered-state": ASKS_INPUT,
  "prompts-get-simple": FIXTURE_PROMPT,
  "prompts-get-with-args": FIXTURE_PROMPT,
  "prompts-get-embedded-resource": FIXTURE_PROMPT,
  "prompts-get-with-image": FIXTURE_PROMPT,
  "completion-complete": `completes an argument of the suite's fixture prompt; agentbank's completions are checked in mcp-versions.test.ts`,
  "resources-read-text": FIXTURE_RESOURCE,
  "resources-read-binary": FIXTURE_RESOURCE,
  "resources-templates-read": `${FIXTURE_RESOURCE}; agentbank has no resource templates`,
  "resources-subscribe":
    "a 2025 subscription lives in a session and /mcp keeps none (each request is answered by a fresh server), so no update could reach the subscriber: the capability is not declared",
  "resources-unsubscribe": "as resources-subscribe: there is nothing to unsubscribe from on a stateless server",
};

let server: TestServer;
/**
 * Stands in front of /mcp as a public deployment's proxy would: Host and Origin pass as they came; it
 * adds the agent's key, which the conformance suite does not send.
 */
let proxy: ReturnType<typeof Bun.serve>;
let proxyKey = "";
let output = "";

beforeAll(async () => {
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${proxyKey}`);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const answer = await fetch(`${server.url}/mcp`, { method: request.method, headers, body, signal: request.signal });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
  server = await startServer({ env: { MCP_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}` } });
  proxyKey = (await server.register()).apiKey;
  output = await mkdtemp(join(tmpdir(), "agentbank-conformance-"));
});
afterAll(async () => {
  proxy.stop(true);
  await server.close();
  await rm(output, { recursive: true, force: true });
});

async function suite(args: string[]): Promise<string> {
  const child = Bun.spawn(["bun", SUITE, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return stdout + stderr;
}

/** The server scenarios a revision requires, as the suite lists them. */
async function requiredScenarios(revision: string): Promise<string[]> {
  const listing = await suite(["list", "--server", "--requirements", revision]);
  const section = listing.split("Server scenarios")[1]!.split(/\n\s*\n/)[0]!;
  return [...section.matchAll(/^\s+- (\S+)$/gm)].map((match) => match[1]!);
}

for (const revision of REVISIONS) {
  test(`conformance ${revision}: every required server scenario passes, but for the not-applicable checks`, async () => {
    const scenarios = await requiredScenarios(revision);
    expect(scenarios).toContain("dns-rebinding-protection");
    const results = join(output, revision);
    await suite(["server", "--url", `http://127.0.0.1:${proxy.port}/mcp`, "--requirements", revision, "-o", results]);
    const runs = await readdir(results);
    const unexpected: string[] = [];
    for (const scenario of scenarios) {
      const run = runs.find((name) => name.startsWith(`server-${scenario}-`) && /^-\d{4}-\d\d-\d\dT/.test(name.slice(`server-${scenario}`.length)));
      if (!run) {
        unexpected.push(`${scenario}: not run`);
        continue;
      }
      const checks = (await Bun.file(join(results, run, "checks.json")).json()) as { id: string; status: string; errorMessage?: string }[];
      for (const check of checks.filter((candidate) => candidate.status === "FAILURE")) {
        if (!NOT_APPLICABLE[scenario] && !NOT_APPLICABLE[`${scenario}#${check.id}`]) unexpected.push(`${scenario}#${check.id}: ${check.errorMessage?.slice(0, 300)}`);
      }
    }
    expect(unexpected).toEqual([]);
  }, 240_000);
}
