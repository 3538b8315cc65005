// agentbank/testing: a real agentbank for your own tests. startAgentbank() runs the service as a child
// process on a fresh database in a temporary folder, with the test clock and an operator key, on a free
// port, and gives you its URL and the helpers a test needs: register agents, fund them as the operator,
// move the clock, check the ledger, stop. Nothing is mocked: your agent talks HTTP to the real thing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { english, generateMnemonic } from "viem/accounts";

const MAIN = join(import.meta.dir, "main.ts");

export type Reply<T = any> = { status: number; body: T; headers: Headers };
export type TestAgent = { id: string; apiKey: string; ownerKey: string; registration: any };
export type StartOptions = {
  /** Extra environment for the service (see README's configuration table). */
  env?: Record<string, string>;
  /** How to run it; default `bun run <this package>/src/main.ts`. Set AGENTBANK_BIN to use the executable. */
  command?: string[];
  /** Milliseconds to wait for it to listen (default 15,000). */
  startTimeoutMs?: number;
  /**
   * A PostgreSQL server URL (a superuser's, e.g. postgres://postgres@127.0.0.1:5432/postgres): the
   * service then runs on a fresh database created there (dropped by close()) instead of a SQLite file.
   */
  postgres?: string;
};

/** Creates a database named `name` on the server of `adminUrl`; returns its URL. */
async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new SQL(adminUrl);
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.close();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new SQL(adminUrl);
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}

export type Agentbank = Awaited<ReturnType<typeof startAgentbank>>;

export async function startAgentbank(options: StartOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-"));
  const databasePath = join(dir, "agentbank.db");
  const pgName = options.postgres ? `agentbank_${crypto.randomUUID().replaceAll("-", "")}` : null;
  const pg = options.postgres && pgName
    ? { DATABASE_URL: await createDatabase(options.postgres, pgName), MASTER_MNEMONIC: generateMnemonic(english) }
    : {};
  const adminKey = options.env?.ADMIN_API_KEY ?? `admin-${crypto.randomUUID()}`;
  const command = options.command ?? (process.env.AGENTBANK_BIN ? [process.env.AGENTBANK_BIN] : ["bun", "run", MAIN]);
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  let baseUrl = "";
  const logs: string[] = [];
  /** Reading the child's output: done when both streams closed (after it exited, every line it wrote is in `logs`). */
  let reading: Promise<unknown> = Promise.resolve();

  async function boot(): Promise<void> {
    const child = Bun.spawn(command, {
      cwd: dir,
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_PATH: databasePath,
        TEST_CLOCK: "true",
        RATE_LIMIT_DEFAULT: "100000",
        RATE_LIMIT_PUBLIC: "100000",
        // As in agentbank dev: register() hands each agent's owner key to the test (OWNER_KEY_AT_REGISTRATION=false tests the claim).
        OWNER_KEY_AT_REGISTRATION: "true",
        ...pg,
        ...options.env,
        ADMIN_API_KEY: adminKey,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    proc = child;
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`agentbank did not start:\n${logs.join("")}`)), options.startTimeoutMs ?? 15_000);
      const drain = async (stream: ReadableStream<Uint8Array>) => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) {
          logs.push(decoder.decode(chunk));
          const match = /listening on (http:\/\/[^\s]+)/.exec(logs.join(""));
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        }
      };
      reading = Promise.all([drain(child.stdout as ReadableStream<Uint8Array>), drain(child.stderr as ReadableStream<Uint8Array>)]);
      // With all it wrote: the line saying why it stopped may still be in the pipe when it has exited.
      void child.exited.then(async (code) => {
        clearTimeout(timer);
        await reading;
        reject(new Error(`agentbank exited with ${code}:\n${logs.join("")}`));
      });
    });
  }

  await boot();

  /** One HTTP call; `key` is sent as the bearer token, `body` as JSON (or `raw` as is). */
  async function request<T = any>(method: string, path: string, init: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  const admin = (method: string, path: string, body?: unknown) => request(method, path, { key: adminKey, body });
  const expectStatus = (reply: Reply, status: number, what: string) => {
    if (reply.status !== status) throw new Error(`${what} failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };

  async function stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    if (!proc) return;
    const child = proc;
    proc = null;
    child.kill(signal);
    await child.exited;
    await reading;
  }

  let agentCount = 0;
  return {
    get url() {
      return baseUrl;
    },
    adminKey,
    databasePath,
    /** Everything the service printed (one JSON object per line), complete once stop() returned. */
    logs,
    request,
    admin,
    /** Registers an agent; returns its id and keys (and the whole registration answer). */
    async register(overrides: Record<string, unknown> = {}): Promise<TestAgent> {
      agentCount += 1;
      const body = expectStatus(
        await request("POST", "/agents/register", { body: { name: `agent-${agentCount}`, ownerName: "Owner", ownerEmail: `owner${agentCount}@example.com`, ...overrides } }),
        201,
        "register",
      );
      return { id: body.agent.id, apiKey: body.apiKey, ownerKey: body.ownerKey, registration: body };
    },
    /** Credits an agent as the operator (POST /admin/deposits). */
    async fund(agentId: string, amount: number, currency = "USDC"): Promise<void> {
      expectStatus(await admin("POST", "/admin/deposits", { agentId, amount, currency }), 201, "deposit");
    },
    /** { available, held } of one currency, in major units. */
    async balance(agent: { apiKey: string }, currency = "USDC"): Promise<{ available: number; held: number }> {
      const body = expectStatus(await request("GET", "/wallets/balance", { key: agent.apiKey }), 200, "balance");
      const row = body.balances.find((entry: { currency: string }) => entry.currency === currency);
      return { available: row.available, held: row.held };
    },
    /** Moves the service's clock forward and runs every job that came due; returns the new time. */
    async advanceClock(seconds: number): Promise<string> {
      return expectStatus(await admin("POST", "/admin/clock/advance", { seconds }), 200, "clock advance").now;
    },
    /** GET /admin/ledger/check: `ok` is true when every invariant (and the chain, if any) holds. */
    async checkLedger(): Promise<{ ok: boolean; [key: string]: any }> {
      return (await admin("GET", "/admin/ledger/check")).body;
    },
    /** Stops the service (SIGTERM drains and answers what is in flight; SIGKILL for crash tests). */
    stop,
    /** Stops it and starts it again on the same database. */
    async restart(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
      await stop(signal);
      logs.length = 0;
      await boot();
    },
    /** Stops it and deletes its folder (and its PostgreSQL database). */
    async close(): Promise<void> {
      await stop();
      rmSync(dir, { recursive: true, force: true });
      if (options.postgres && pgName) await dropDatabase(options.postgres, pgName);
    },
    /** The environment that points another instance at the same database (PostgreSQL), e.g. for startAgentbank({ env }). */
    sharedDatabaseEnv: pg as Record<string, string>,
  };
}
