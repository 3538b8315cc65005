// The bench's load generator and its bookkeeping: wrk (Debian) runs, Lua scripts for agent pairs, and
// the min / median / max of repeated runs.
import { join } from "node:path";

/** BENCH_QUICK=1: one short round of everything, a smoke run of the bench itself. */
export const QUICK = Boolean(process.env.BENCH_QUICK);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 3 : 10));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.log("installing wrk (apt-get)…");
  Bun.spawnSync(["apt-get", "update", "-qq"], { stdout: "ignore", stderr: "ignore" });
  const install = Bun.spawnSync(["apt-get", "install", "-y", "-qq", "wrk"], { stdout: "ignore", stderr: "inherit" });
  if (install.exitCode !== 0 || !Bun.which("wrk")) throw new Error("wrk is needed: apt-get install wrk");
}

export type Run = { requests: number; rps: number; p50: number; p99: number; non2xx: number; errors: string };

function parse(out: string): Run {
  const ms = (label: string) => {
    const match = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
  };
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms("50"),
    p99: ms("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: /Socket errors:.*/.exec(out)?.[0] ?? "",
  };
}

/**
 * wrk against each URL at once (the connections split between them); one URL is the usual case, two
 * is two instances behind no balancer. Requests add up; the p99 is the worse of the two.
 */
export async function wrk(urls: string[], script: string | null, connections = CONNECTIONS, seconds = SECONDS): Promise<Run> {
  const each = Math.max(2, Math.floor(connections / urls.length));
  const runs = await Promise.all(
    urls.map(async (url) => {
      const args = ["wrk", "-t2", `-c${each}`, `-d${seconds}s`, "--latency", ...(script ? ["-s", script] : []), url];
      const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
      return parse(await new Response(child.stdout).text());
    }),
  );
  return {
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    rps: runs.reduce((sum, run) => sum + run.rps, 0),
    p50: Math.max(...runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.map((run) => run.errors).filter(Boolean).join("; "),
  };
}

export type Agent = { id: string; apiKey: string };

/**
 * A wrk script: each request from a random agent to another random agent; TO in the body is the payee.
 * `idempotent`: each request carries its own Idempotency-Key (unique per wrk thread and run).
 */
export function pairScript(dir: string, name: string, agents: Agent[], path: string, body: string, idempotent = false): string {
  const file = join(dir, `${name}.lua`);
  const rows = agents.map((agent) => `{"${agent.id}","${agent.apiKey}"}`).join(",\n");
  Bun.write(
    file,
    `local agents = {\n${rows}\n}
local n = #agents
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local prefix, counter
function init(args)
  math.randomseed(os.time() * 1009 + (tid or 0) * 7919 + math.floor(os.clock() * 1000000))
  prefix = string.format("k%x%04x-%d-", os.time(), math.random(0, 65535), tid or 0)
  counter = 0
end
request = function()
  local from = agents[math.random(n)]
  local to = agents[math.random(n)]
  while to == from do to = agents[math.random(n)] end
  local body = string.gsub('${body}', "TO", to[1])
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. from[2]}
  ${idempotent ? 'counter = counter + 1; headers["Idempotency-Key"] = prefix .. counter' : ""}
  return wrk.format("POST", "${path}", headers, body)
end
`,
  );
  return file;
}

/** A wrk script: GET `path` with one agent's key. */
export function getScript(dir: string, name: string, key: string, path: string): string {
  const file = join(dir, `${name}.lua`);
  Bun.write(file, `wrk.headers["Authorization"] = "Bearer ${key}"\nwrk.path = "${path}"\n`);
  return file;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** min / median / max */
export const spread = (values: number[], digits: number) => {
  const fmt = (value: number) => value.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${fmt(Math.min(...values))} / ${fmt(median(values))} / ${fmt(Math.max(...values))}`;
};

/** One line of the result table: several runs of one measurement, and what limits it. */
export type Figure = { what: string; runs: Run[]; note?: string };

export function printTable(title: string, figures: Figure[]): void {
  console.log(`\n${title}\n`);
  console.log("| what | req/s min / median / max | p99 ms min / median / max | non-2xx | note |");
  console.log("|---|---|---|---|---|");
  for (const { what, runs, note } of figures) {
    if (runs.length === 0) continue;
    const non2xx = runs.reduce((sum, run) => sum + run.non2xx, 0);
    const errors = runs.map((run) => run.errors).filter(Boolean);
    console.log(`| ${what} | ${spread(runs.map((r) => r.rps), 0)} | ${spread(runs.map((r) => r.p99), 1)} | ${non2xx} | ${[note, ...errors].filter(Boolean).join("; ")} |`);
  }
}

export const medianRps = (figure: Figure | undefined) => (figure && figure.runs.length ? median(figure.runs.map((run) => run.rps)) : 0);
