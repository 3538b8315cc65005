// Starts the real server (`bun run src/main.ts`) as a child process on a fresh SQLite file and a free
// port, and talks HTTP to it. Every test file gets its own server; restart() keeps the database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ADMIN_KEY = "test-admin-key";
const ROOT = join(import.meta.dir, "../..");

export type Reply<T = any> = { status: number; body: T; headers: Headers };

export type Agent = { id: string; apiKey: string; ownerKey: string; registration: any };

export type TestServer = Awaited<ReturnType<typeof startServer>>;

export async function startServer(options: { env?: Record<string, string>; command?: string[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "agentbank-test-"));
  const databasePath = join(dir, "agentbank.db");
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  let baseUrl = "";
  const logs: string[] = [];

  async function boot(): Promise<void> {
    const child = Bun.spawn(options.command ?? ["bun", "run", join(ROOT, "src/main.ts")], {
      cwd: dir,
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_PATH: databasePath,
        ADMIN_API_KEY: ADMIN_KEY,
        TEST_CLOCK: "true",
        RATE_LIMIT_DEFAULT: "100000",
        RATE_LIMIT_PUBLIC: "100000",
        ...options.env,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    proc = child;
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs.join("")}`)), 15_000);
      const drain = async (stream: ReadableStream<Uint8Array>) => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) {
          const text = decoder.decode(chunk);
          logs.push(text);
          const match = /listening on (http:\/\/[^\s]+)/.exec(logs.join(""));
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        }
      };
      void drain(child.stdout as ReadableStream<Uint8Array>);
      void drain(child.stderr as ReadableStream<Uint8Array>);
      void child.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${logs.join("")}`));
      });
    });
  }

  await boot();

  async function request<T = any>(
    method: string,
    path: string,
    init: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Reply<T>> {
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

  const admin = (method: string, path: string, body?: unknown) => request(method, path, { key: ADMIN_KEY, body });

  let agentCount = 0;
  async function register(overrides: Record<string, unknown> = {}): Promise<Agent> {
    agentCount += 1;
    const reply = await request("POST", "/agents/register", {
      body: { name: `agent-${agentCount}`, ownerName: "Owner", ownerEmail: `owner${agentCount}@example.com`, ...overrides },
    });
    if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    return { id: reply.body.agent.id, apiKey: reply.body.apiKey, ownerKey: reply.body.ownerKey, registration: reply.body };
  }

  async function deposit(agentId: string, amount: number, currency = "USDC"): Promise<void> {
    const reply = await admin("POST", "/admin/deposits", { agentId, amount, currency });
    if (reply.status !== 201) throw new Error(`deposit failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  /** { available, held } of one currency, as numbers in major units. */
  async function balance(agent: Agent, currency = "USDC"): Promise<{ available: number; held: number }> {
    const reply = await request("GET", "/wallets/balance", { key: agent.apiKey });
    const row = reply.body.balances.find((entry: { currency: string }) => entry.currency === currency);
    return { available: row.available, held: row.held };
  }

  async function ledgerCheck(): Promise<any> {
    return (await admin("GET", "/admin/ledger/check")).body;
  }

  async function advance(seconds: number): Promise<void> {
    const reply = await admin("POST", "/admin/clock/advance", { seconds });
    if (reply.status !== 200) throw new Error(`clock advance failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  async function stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    if (!proc) return;
    const child = proc;
    proc = null;
    child.kill(signal);
    await child.exited;
  }

  return {
    get url() {
      return baseUrl;
    },
    databasePath,
    logs,
    request,
    admin,
    register,
    deposit,
    balance,
    ledgerCheck,
    advance,
    stop,
    /** Stops (SIGTERM or SIGKILL) and starts again on the same database file. */
    async restart(signal: "SIGTERM" | "SIGKILL" = "SIGTERM") {
      await stop(signal);
      logs.length = 0;
      await boot();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
