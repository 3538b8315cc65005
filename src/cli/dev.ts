// `agentbank dev`: a development start that is ready to use. Its own SQLite file (never the production
// database, whatever the environment says), the test clock, an operator key generated for this start,
// and two demo agents funded through the operator route, their keys printed once with curl lines and
// the MCP configuration. The same values go to ./data/dev/demo.env (0600) for scripts and the README.
// It listens on a loopback HOST only, unless --public: with the operator routes and the test clock on,
// a HOST=0.0.0.0 left in the environment or a .env would open them to the network. The banner is for a
// person at a terminal (keys and curl lines to copy): plain text among the JSON log lines, the one
// exception of `agentbank dev` (docs/operations.md, "Logs").
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { boot, loadConfig } from "../boot";
import { logLine, printText } from "../log";
import { secret } from "../ids";
import { isLoopbackHost } from "../net/addresses";
import { UsageError } from "./commands";
import { serve } from "./serve";

const DIRECTORY = "./data/dev";
const DATABASE = `${DIRECTORY}/agentbank.db`;
const DEMO_ENV = `${DIRECTORY}/demo.env`;
const DEMO_FUNDS_USDC = 100;

type DemoAgent = { name: string; id: string; apiKey: string; ownerKey: string };

/** One call to the running app, as an HTTP client would make it; anything but `expected` stops the start. */
async function call(handle: (request: Request) => Promise<Response>, url: string, path: string, key: string | null, body: unknown, expected: number) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await handle(new Request(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
  const answer = (await response.json()) as Record<string, any>;
  if (response.status !== expected) throw new Error(`dev demo: POST ${path} answered ${response.status}: ${answer.message ?? JSON.stringify(answer)}`);
  return answer;
}

async function createDemo(handle: (request: Request) => Promise<Response>, url: string, adminKey: string): Promise<DemoAgent[]> {
  const agents: DemoAgent[] = [];
  for (const [name, owner] of [["demo-alice", "Alice"], ["demo-bob", "Bob"]] as const) {
    const registered = await call(handle, url, "/agents/register", null, { name, ownerName: `${owner} (demo)`, ownerEmail: `${owner.toLowerCase()}@example.com` }, 201);
    const id = registered.agent.id as string;
    // The operator's deposit, exactly as POST /admin/deposits does it for anyone.
    await call(handle, url, "/admin/deposits", adminKey, { agentId: id, amount: DEMO_FUNDS_USDC, currency: "USDC", reference: "agentbank dev demo" }, 201);
    agents.push({ name, id, apiKey: registered.apiKey, ownerKey: registered.ownerKey });
  }
  return agents;
}

function banner(url: string, adminKey: string, existed: boolean, [alice, bob]: DemoAgent[]): string {
  const json = (value: unknown) => `'${JSON.stringify(value)}'`;
  const mcp = { mcpServers: { agentbank: { type: "http", url: `${url}/mcp`, headers: { Authorization: `Bearer ${alice!.apiKey}` } } } };
  return `
== agentbank dev: a development start, never for production ==
database      ${DATABASE} (${existed ? "existing, kept from an earlier `agentbank dev`; `agentbank dev --fresh` starts over" : "new"})
test clock    on: POST /admin/clock/advance {"seconds": 3600} moves time forward
operator key  ${adminKey}
              (generated for this start; Authorization: Bearer <key> on /admin/...)

demo agents, ${DEMO_FUNDS_USDC} USDC each (their keys are shown only now; also in ${DEMO_ENV}):
${[alice!, bob!].map((agent) => `  ${agent.name.padEnd(10)}  id ${agent.id}\n              agent key ${agent.apiKey}\n              owner key ${agent.ownerKey}`).join("\n")}

try it (copy and paste):
  # register an agent: the answer holds its apiKey and ownerKey, shown once
  curl -s ${url}/agents/register -H 'content-type: application/json' -d ${json({ name: "my-agent", ownerName: "Me", ownerEmail: "me@example.com" })}
  # fund demo-alice as the operator (an operator deposit)
  curl -s ${url}/admin/deposits -H 'authorization: Bearer ${adminKey}' -H 'content-type: application/json' -d ${json({ agentId: alice!.id, amount: 25, currency: "USDC" })}
  # demo-alice pays demo-bob 5 USDC
  curl -s ${url}/payments/send -H 'authorization: Bearer ${alice!.apiKey}' -H 'content-type: application/json' -d ${json({ toAgentId: bob!.id, amount: 5, currency: "USDC", reason: "first payment" })}
  # demo-alice's history
  curl -s ${url}/wallets/history -H 'authorization: Bearer ${alice!.apiKey}'

MCP for demo-alice (an MCP client's configuration):
  ${JSON.stringify(mcp)}
owner console: ${url}/console (sign in with an owner key); API reference: ${url}/swagger
`;
}

function demoEnv(url: string, adminKey: string, [alice, bob]: DemoAgent[]): string {
  const lines = {
    AGENTBANK_URL: url,
    ADMIN_KEY: adminKey,
    ALICE_ID: alice!.id,
    ALICE_KEY: alice!.apiKey,
    ALICE_OWNER_KEY: alice!.ownerKey,
    BOB_ID: bob!.id,
    BOB_KEY: bob!.apiKey,
    BOB_OWNER_KEY: bob!.ownerKey,
  };
  return `# written by \`agentbank dev\` at its last start: . ${DEMO_ENV}\n${Object.entries(lines).map(([name, value]) => `export ${name}='${value}'`).join("\n")}\n`;
}

/** Refuses (usage error) a HOST that is not loopback unless `--public`; with it, warns in the log what is open. */
function checkHost(host: string, allowPublic: boolean): void {
  if (isLoopbackHost(host)) return;
  if (!allowPublic) {
    throw new UsageError(`HOST is ${host}, not a loopback address (127.0.0.0/8, ::1, localhost): agentbank dev turns the operator routes and the test clock on; unset HOST, or pass --public to listen there anyway`);
  }
  logLine({ level: "warn", msg: `agentbank dev: listening on HOST ${host} (--public): the operator routes and the test clock are reachable from other machines`, host });
}

export async function dev(options: { fresh?: boolean; public?: boolean }): Promise<void> {
  const adminKey = secret("dev_admin_");
  // The demo agents' owner keys are printed: a development start keeps the owner key at registration.
  const env = { OWNER_KEY_AT_REGISTRATION: "true", ...process.env, DATABASE_PATH: DATABASE, DATABASE_URL: "", ADMIN_API_KEY: adminKey, TEST_CLOCK: "true" };
  checkHost(loadConfig(env).host, options.public === true);
  if (options.fresh) for (const file of [DATABASE, `${DATABASE}-wal`, `${DATABASE}-shm`, DEMO_ENV]) rmSync(file, { force: true });
  const existed = existsSync(DATABASE);
  const config = await boot(env);
  const { app, url } = await serve(config);
  const agents = await createDemo((request) => app.handle(request), url, adminKey);
  writeFileSync(DEMO_ENV, demoEnv(url, adminKey, agents), { mode: 0o600 });
  printText(`${banner(url, adminKey, existed, agents)}\n`);
}
