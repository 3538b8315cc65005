// /metrics (src/metrics): refused without the token, 404 when none is configured, served without a
// credential only on the METRICS_PORT listener (which serves nothing else); the HTTP metrics labelled by
// route template; the state gauges (money, approvals, the ledger check, backups) and the engine's own;
// a real Prometheus (Debian's) scraping the listener during a payment load and answering PromQL; and
// promtool on the shipped alert rules.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startAnvil, startRpcProxy, TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

setDefaultTimeout(120_000);

const TOKEN = "metrics-token-for-the-test-0123";
const RULES = join(import.meta.dir, "..", "deploy", "prometheus");
const DASHBOARD = join(import.meta.dir, "..", "deploy", "grafana", "agentbank-dashboard.json");

let plain: TestServer;
let server: TestServer;
let listener: string;

beforeAll(async () => {
  [plain, server] = await Promise.all([startServer(), startServer({ env: { METRICS_PORT: "0", METRICS_TOKEN: TOKEN } })]);
  listener = /metrics on (http:\/\/\S+\/metrics) \(METRICS_PORT\)/.exec(server.logs.join(""))![1]!;
});
afterAll(async () => {
  await Promise.all([plain?.close(), server?.close()]);
});

const scrape = async () => {
  const response = await fetch(listener);
  expect(response.status).toBe(200);
  return response.text();
};

/** The value of one series in the text format, or undefined when it is absent. `labels` must match exactly, in order. */
function sample(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((row) => row.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("where /metrics answers", () => {
  test("no METRICS_TOKEN: /metrics on the main port is 404, and no listener is opened", async () => {
    const reply = await plain.request("GET", "/metrics", { key: TOKEN });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toBe("NOT_FOUND");
    expect(plain.logs.join("")).not.toContain("metrics on");
  });

  test("the main port: 401 without the token or with another key, 200 with it", async () => {
    for (const key of [undefined, "metrics-token-for-the-test-0124", server.adminKey]) {
      const reply = await server.request("GET", "/metrics", { key });
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe("UNAUTHORIZED");
    }
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    expect(await response.text()).toContain("# TYPE agentbank_http_requests_total counter");
  });

  test("the METRICS_PORT listener: GET /metrics without a credential, nothing else", async () => {
    expect(new URL(listener).hostname).toBe("127.0.0.1");
    expect(await scrape()).toContain("agentbank_process_resident_memory_bytes");
    const base = listener.replace(/\/metrics$/, "");
    for (const [method, path] of [["GET", "/health"], ["GET", "/swagger/json"], ["POST", "/metrics"], ["GET", "/metrics/x"], ["GET", "/admin/ledger/check"]]) {
      expect({ method, path, status: (await fetch(base + path!, { method })).status }).toEqual({ method, path, status: 404 });
    }
  });

  test("a METRICS_PORT that cannot be opened stops the start with one line, exit 1", async () => {
    const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    try {
      const start = startServer({ env: { METRICS_PORT: String(taken.port) } });
      const failure = String(await start.then(() => "started", (error: Error) => error.message));
      expect(failure).toContain("exited with 1");
      expect(failure).toContain(`"msg":"metrics error: METRICS_PORT ${taken.port} on 127.0.0.1 cannot be opened`);
    } finally {
      taken.stop(true);
    }
  });

  test("/metrics is not in the API's document", async () => {
    const document = (await server.request("GET", "/swagger/json")).body;
    expect(Object.keys(document.paths)).not.toContain("/metrics");
  });
});

describe("what /metrics shows", () => {
  test("requests by route template (never the raw path), money, approvals, the ledger check, the engine", async () => {
    const [alice, bob] = [await server.register(), await server.register()];
    await server.deposit(alice.id, 100);
    for (let i = 0; i < 3; i++) {
      expect((await server.request("POST", "/payments/send", { key: alice.apiKey, body: { toAgentId: bob.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    }
    expect((await server.request("GET", `/agents/${bob.id}/reputation`)).status).toBe(200);
    expect((await server.request("GET", `/no/such/${bob.id}`)).status).toBe(404);
    await server.request("PUT", "/owner/policy", { key: alice.ownerKey, body: { approvalAbove: { USDC: 20 } } });
    expect((await server.request("POST", "/payments/send", { key: alice.apiKey, body: { toAgentId: bob.id, amount: 30, currency: "USDC" } })).status).toBe(202);

    let text = await scrape();
    expect(sample(text, "agentbank_http_requests_total", 'route="/payments/send",method="POST",status="201"')).toBe(3);
    expect(sample(text, "agentbank_http_requests_total", 'route="/payments/send",method="POST",status="202"')).toBe(1);
    expect(sample(text, "agentbank_http_requests_total", 'route="/agents/:id/reputation",method="GET",status="200"')).toBe(1);
    expect(sample(text, "agentbank_http_requests_total", 'route="unmatched",method="GET",status="404"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, "agentbank_http_request_duration_seconds_count", 'route="/payments/send"')).toBe(4);
    expect(text).not.toContain(bob.id);
    // 100 deposited, 3 paid to bob (still agents' money), 30 held for the owner's decision.
    expect(sample(text, "agentbank_money_available", 'currency="USDC"')).toBe(70);
    expect(sample(text, "agentbank_money_held", 'currency="USDC"')).toBe(30);
    expect(sample(text, "agentbank_approvals_pending")).toBe(1);
    expect(sample(text, "agentbank_approvals_expiring_soon")).toBe(0);
    expect(sample(text, "agentbank_withdrawals", 'state="SUBMITTED"')).toBe(0);
    expect(sample(text, "agentbank_db_writes_committed_total")).toBeGreaterThan(5);
    // No check has run yet: the gauge is absent (an alert on == 0 must not fire), not 0.
    expect(sample(text, "agentbank_ledger_check_ok")).toBeUndefined();
    if (TEST_POSTGRES) {
      expect(sample(text, "agentbank_pg_pool_size")).toBe(16);
      expect(sample(text, "agentbank_pg_pool_connections_in_use")).toBeGreaterThanOrEqual(0);
      expect(sample(text, "agentbank_pg_pool_connections_waiting")).toBe(0);
      expect(sample(text, "agentbank_db_writes_retried_total")).toBeGreaterThanOrEqual(0);
      expect(text).not.toContain("agentbank_sqlite_group_commit");
    } else {
      expect(sample(text, "agentbank_sqlite_group_commit_ops_count")).toBeGreaterThan(0);
      expect(sample(text, "agentbank_sqlite_group_commit_seconds_count")).toBe(sample(text, "agentbank_sqlite_group_commit_ops_count"));
      expect(text).not.toContain("agentbank_pg_pool");
    }

    // An hour before the held payment expires, it counts as expiring unanswered.
    await server.advance(23.5 * 3600);
    await expectLedgerOk(server);
    text = await scrape();
    expect(sample(text, "agentbank_approvals_expiring_soon")).toBe(1);
    expect(sample(text, "agentbank_ledger_check_ok")).toBe(1);
    expect(Math.abs(sample(text, "agentbank_ledger_check_timestamp_seconds")! - Date.now() / 1000)).toBeLessThan(600);
  });

  test.skipIf(!!TEST_POSTGRES)("SQLite: the last backup's time, 0 before the first", async () => {
    expect(sample(await scrape(), "agentbank_backup_last_success_timestamp_seconds")).toBe(0);
    const backup = await fetch(`${server.url}/admin/backup`, { headers: { authorization: `Bearer ${server.adminKey}` } });
    expect(backup.status).toBe(200);
    await backup.arrayBuffer();
    const at = await waitFor(async () => sample(await scrape(), "agentbank_backup_last_success_timestamp_seconds") || undefined);
    expect(Math.abs(at - Date.now() / 1000)).toBeLessThan(600);
  });
});

describe("with a chain (anvil)", () => {
  test("unconfirmed deposits, the head's lag, the treasury's balances, a withdrawal stuck in SUBMITTED", async () => {
    const anvil = await startAnvil();
    const proxy = startRpcProxy(anvil.rpcUrl);
    const chained = await startServer({
      env: { METRICS_PORT: "0", CHAIN_RPC_URL: proxy.url, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "3" },
    });
    try {
      const address = /metrics on (http:\/\/\S+\/metrics) \(METRICS_PORT\)/.exec(chained.logs.join(""))![1]!;
      const metrics = async () => (await fetch(address)).text();
      // The treasury is anvil's first account (10,000 ETH); the test's deposit sits in the newest block, 2 short of 3 confirmations.
      await anvil.mint("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "100");
      const agent = await chained.register();
      await anvil.transfer(agent.registration.wallet.address, "5");
      await chained.advance(1);
      let text = await metrics();
      expect(sample(text, "agentbank_chain_deposits_unconfirmed")).toBe(1);
      expect(sample(text, "agentbank_chain_deposits_unconfirmed_usdc")).toBe(5);
      expect(sample(text, "agentbank_chain_head_lag_blocks")).toBe(2);
      expect(sample(text, "agentbank_chain_cursor_block_timestamp_seconds")).toBeGreaterThan(0);
      expect(sample(text, "agentbank_treasury_usdc")).toBe(100);
      expect(sample(text, "agentbank_treasury_gas_eth")).toBeGreaterThan(1);
      await anvil.mine(2);
      await chained.advance(1);
      text = await metrics();
      expect(sample(text, "agentbank_chain_deposits_unconfirmed")).toBe(0);
      expect(await chained.balance(agent)).toEqual({ available: 5, held: 0 });

      // A withdrawal signed and stored but never broadcast stays SUBMITTED: its age grows with the clock.
      proxy.set("no-broadcast");
      const reply = await chained.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: 2 } });
      expect(reply.status).toBe(200);
      await waitFor(async () => (sample(await metrics(), "agentbank_withdrawals", 'state="SUBMITTED"') === 1 ? true : undefined), 10_000);
      await chained.advance(3600);
      expect(sample(await metrics(), "agentbank_withdrawal_oldest_submitted_age_seconds")).toBeGreaterThanOrEqual(3600);
      proxy.set("up");
      await chained.advance(1);
      await anvil.mine(3);
      await chained.advance(1);
      await waitFor(async () => (sample(await metrics(), "agentbank_withdrawals", 'state="SUBMITTED"') === 0 ? true : undefined), 10_000);
      expect(sample(await metrics(), "agentbank_withdrawal_oldest_submitted_age_seconds")).toBe(0);
      await expectLedgerOk(chained);
    } finally {
      await chained.close();
      proxy.stop();
      anvil.stop();
    }
  });
});

describe("a real Prometheus", () => {
  test("scrapes the listener during a payment load; PromQL answers the payment rate and p99", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentbank-prometheus-"));
    const config = join(dir, "prometheus.yml");
    const target = new URL(listener).host;
    writeFileSync(config, `global: { scrape_interval: 1s, evaluation_interval: 1s }\nrule_files: ["${join(RULES, "agentbank-rules.yml")}"]\nscrape_configs:\n  - job_name: agentbank\n    static_configs: [{ targets: ["${target}"] }]\n`);
    const prometheus = Bun.spawn(["/usr/bin/prometheus", `--config.file=${config}`, `--storage.tsdb.path=${join(dir, "data")}`, "--web.listen-address=127.0.0.1:0"], { cwd: dir, stdout: "ignore", stderr: "pipe" });
    try {
      const api = await prometheusAddress(prometheus.stderr as ReadableStream<Uint8Array>);
      const query = async (promql: string) => {
        const reply = (await (await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { status: string; data: { result: { value: [number, string] }[] } };
        expect(reply.status).toBe("success");
        return reply.data.result.map((row) => Number(row.value[1]));
      };
      const [payer, payee] = [await server.register(), await server.register()];
      await server.deposit(payer.id, 1000);
      let paying = true;
      const load = (async () => {
        while (paying) await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 0.01, currency: "USDC" } });
      })();
      try {
        const rate = await waitFor(async () => {
          const [value] = await query('sum(rate(agentbank_http_requests_total{route="/payments/send"}[30s]))');
          return value !== undefined && value > 0 ? value : undefined;
        }, 60_000);
        expect(rate).toBeGreaterThan(0);
        const p99 = await waitFor(async () => {
          const [value] = await query("histogram_quantile(0.99, sum by (le) (rate(agentbank_http_request_duration_seconds_bucket[30s])))");
          return value !== undefined && Number.isFinite(value) ? value : undefined;
        }, 60_000);
        expect(p99).toBeGreaterThan(0);
        // The engine's own, seen busy under the load: the group commit (SQLite), the pool (PostgreSQL).
        const busy = TEST_POSTGRES ? "max_over_time(agentbank_pg_pool_connections_in_use[1m])" : "rate(agentbank_sqlite_group_commit_ops_count[30s])";
        expect(await waitFor(async () => ((await query(busy))[0] ?? 0) > 0 || undefined, 60_000)).toBe(true);
        // The shipped rules load and evaluate against the live series.
        const rules = (await (await fetch(`${api}/api/v1/rules`)).json()) as { data: { groups: { rules: { health: string }[] }[] } };
        expect(rules.data.groups.flatMap((group) => group.rules).length).toBeGreaterThan(10);
        expect(await query('up{job="agentbank"}')).toEqual([1]);
        // Every query of the shipped dashboard is one Prometheus accepts (query() expects status success).
        const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as { panels: { targets?: { expr: string }[] }[] };
        const queries = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr.replaceAll("$job", "agentbank").replaceAll("$__rate_interval", "30s"));
        expect(queries.length).toBeGreaterThan(20);
        for (const promql of queries) await query(promql);
      } finally {
        paying = false;
        await load;
      }
      await expectLedgerOk(server);
    } finally {
      prometheus.kill();
      await prometheus.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Prometheus's HTTP address, from its log line `msg="Listening on" address=127.0.0.1:PORT` (it was given port 0). */
async function prometheusAddress(log: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = log.getReader();
  const found = await waitFor(async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`prometheus exited: ${text}`);
    text += decoder.decode(value);
    return /msg="Listening on" address=(127\.0\.0\.1:\d+)/.exec(text)?.[1];
  }, 30_000);
  // Keep draining its log so that it never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  const api = `http://${found}`;
  await waitFor(async () => ((await fetch(`${api}/-/ready`).catch(() => null))?.ok ? true : undefined), 30_000);
  return api;
}

describe("the shipped alert rules", () => {
  const promtool = (...args: string[]) => Bun.spawnSync(["/usr/bin/promtool", ...args], { cwd: RULES });
  test("promtool check rules passes", () => {
    const run = promtool("check", "rules", "agentbank-rules.yml");
    expect({ code: run.exitCode, out: run.stdout.toString() }).toMatchObject({ code: 0 });
    expect(run.stdout.toString()).toContain("SUCCESS");
  });

  test("promtool test rules fires the ledger and stuck-withdrawal alerts on made-up series", () => {
    const run = promtool("test", "rules", "agentbank-rules.test.yml");
    expect({ code: run.exitCode, out: run.stdout.toString() + run.stderr.toString() }).toMatchObject({ code: 0 });
  });
});
