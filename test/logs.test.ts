// The log as an operator's collector reads it (issue 35): the real server, its stdout and stderr kept
// apart, through a short scenario — every line is one JSON object with `level`, `t` and `msg`; a
// refused request's line carries the answer's code and message, an operator's the operator; LOG_LEVEL
// takes debug, info, warn and error, and drops what is below it; a bad LOG_LEVEL is one JSON line.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Reply } from "./helpers/server";

setDefaultTimeout(60_000);

const MAIN = join(import.meta.dir, "..", "src/main.ts");
const LEVELS = ["debug", "info", "warn", "error"];
type Line = Record<string, unknown> & { level: string; t: string; msg: string };

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agentbank-logs-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every line of `text` as JSON, each checked for level, t and msg. */
function parseLines(text: string, stream: string): Line[] {
  const lines = text.split("\n");
  expect(lines.pop()).toBe(""); // each line ends with a newline, the last one too
  return lines.map((line) => {
    let parsed: Line;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`not a JSON line on ${stream}: ${line}`);
    }
    expect({ line, level: LEVELS.includes(parsed.level), t: typeof parsed.t === "string" && new Date(parsed.t).toISOString() === parsed.t, msg: typeof parsed.msg }).toEqual({ line, level: true, t: true, msg: "string" });
    return parsed;
  });
}

/** The real server with its stderr written to a file of its own (stdout is `logs`). */
async function serverApart(env: Record<string, string> = {}) {
  const stderrFile = join(mkdtempSync(join(work, "run-")), "stderr.log");
  const server = await startServer({ env, command: ["sh", "-c", 'exec "$@" 2>"$0"', stderrFile, "bun", "run", MAIN] });
  return {
    server,
    /** Stops it and reads both streams. */
    async stopAndRead() {
      await server.stop();
      const read = { stdout: parseLines(server.logs.join(""), "stdout"), stderr: parseLines(readFileSync(stderrFile, "utf8"), "stderr") };
      await server.close();
      return read;
    },
  };
}

const lineOf = (lines: Line[], reply: Reply) => {
  const found = lines.filter((line) => line.msg === "request" && line.requestId === reply.headers.get("request-id"));
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe("every line is JSON", () => {
  test("start-up, requests of every kind, refusals with their code and message, the operator named, shutdown", async () => {
    const { server, stopAndRead } = await serverApart();
    const payer = await server.register();
    const payee = await server.register();
    const deposit = await server.admin("POST", "/admin/deposits", { agentId: payer.id, amount: 20, currency: "USDC" });
    expect(deposit.status).toBe(201);
    const payment = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 5, currency: "USDC" } });
    expect(payment.status).toBe(201);
    const invalid = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: -1, currency: "USDC" } });
    const unknownRoute = await server.request("GET", "/no/such/route");
    const badKey = await server.request("GET", "/wallets/balance", { key: "pp_not_a_key" });
    const noChain = await server.request("POST", "/wallets/withdraw", { key: payer.apiKey, body: { toAddress: `0x${"1".repeat(40)}`, amount: 1 } });
    const refusedOperator = await server.request("GET", "/admin/ledger/check", { key: payer.apiKey });
    expect([invalid.status, unknownRoute.status, badKey.status, noChain.status, refusedOperator.status]).toEqual([400, 404, 401, 503, 401]);
    await expectLedgerOk(server);

    const { stdout, stderr } = await stopAndRead();
    expect(stderr).toEqual([]);
    // The start-up line: one, holding the address as CONTRACT §1 says, a space after it (grep -o 'listening on http://[^ ]*').
    const starts = stdout.filter((line) => line.msg.includes("listening on"));
    expect(starts).toHaveLength(1);
    expect(starts[0]!.msg).toContain(`listening on ${server.url} `);
    expect(starts[0]).toMatchObject({ level: "info", url: server.url });
    expect(stdout.filter((line) => line.msg === "shutting down")).toEqual([expect.objectContaining({ level: "info", signal: "SIGTERM" })]);

    for (const [reply, code, level] of [
      [invalid, "VALIDATION_ERROR", "warn"],
      [unknownRoute, "NOT_FOUND", "warn"],
      [badKey, "UNAUTHORIZED", "warn"],
      [noChain, "CHAIN_UNAVAILABLE", "error"],
      [refusedOperator, "UNAUTHORIZED", "warn"],
    ] as const) {
      expect(reply.body.error).toBe(code);
      expect(lineOf(stdout, reply)).toMatchObject({ level, status: reply.status, code, message: reply.body.message });
    }
    const paid = lineOf(stdout, payment);
    expect(paid).toMatchObject({ level: "info", status: 201, agentId: payer.id, credential: "agent_key" });
    expect(paid).not.toHaveProperty("code");
    expect(lineOf(stdout, deposit)).toMatchObject({ level: "info", status: 201, credential: "operator", operator: "admin" });
    for (const line of stdout.filter((line) => line.msg === "request")) {
      expect({ status: line.status, level: line.level, coded: "code" in line && "message" in line }).toEqual({
        status: line.status,
        level: Number(line.status) >= 500 ? "error" : Number(line.status) >= 400 ? "warn" : "info",
        coded: Number(line.status) >= 400,
      });
    }
  });
});

describe("LOG_LEVEL", () => {
  test("warn: starts (its start-up line is written at every level), refusals are written, info lines are not", async () => {
    const { server, stopAndRead } = await serverApart({ LOG_LEVEL: "warn" });
    const agent = await server.register();
    expect((await server.request("GET", "/wallets/balance", { key: agent.apiKey })).status).toBe(200);
    const missing = await server.request("GET", "/no/such/route");
    const { stdout, stderr } = await stopAndRead();
    expect(stderr).toEqual([]);
    expect(stdout.filter((line) => line.level === "info").map((line) => line.msg)).toEqual([expect.stringContaining(`listening on ${server.url} `)]);
    expect(lineOf(stdout, missing)).toMatchObject({ level: "warn", status: 404, code: "NOT_FOUND" });
    expect(stdout.filter((line) => line.msg === "request")).toHaveLength(1);
  });

  test("debug, info, warn and error start; anything else stops the start with one JSON line on stderr, exit 1", async () => {
    for (const [level, written] of [["debug", ["info"]], ["error", []], ["WARN", []]] as const) {
      const { server, stopAndRead } = await serverApart({ LOG_LEVEL: level });
      expect((await server.request("GET", "/health")).status).toBe(200);
      const { stdout } = await stopAndRead();
      expect({ level, written: stdout.filter((line) => line.msg === "request").map((line) => line.level) }).toEqual({ level, written: [...written] });
    }
    const result = Bun.spawnSync(["bun", "run", MAIN], { cwd: work, env: { PATH: process.env.PATH ?? "", PORT: "0", LOG_LEVEL: "bogus" }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
    expect({ code: result.exitCode, stdout: result.stdout.toString() }).toEqual({ code: 1, stdout: "" });
    expect(parseLines(result.stderr.toString(), "stderr")).toEqual([
      { level: "error", t: expect.any(String), msg: 'configuration error: LOG_LEVEL: expected debug, info, warn or error, got "bogus"' },
    ]);
  });
});
