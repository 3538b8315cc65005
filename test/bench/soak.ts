// `bun run bench soak`: payments at a fixed rate for BENCH_SOAK_SECONDS (default 600), the server's
// RSS every minute — memory must stay flat under a steady load.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "./wrk";

type Server = { child: { pid: number | undefined }; url: string; stop: () => Promise<void> };

function rssMb(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

export async function soakBench(startServer: (dir: string) => Promise<Server>, fundedAgents: (url: string, count: number) => Promise<Agent[]>) {
  const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
  const rate = Number(process.env.BENCH_SOAK_RATE ?? 1000);
  const dir = mkdtempSync(join(tmpdir(), "agentbank-soak-"));
  const server = await startServer(dir);
  const pid = server.child.pid!;
  try {
    const agents = await fundedAgents(server.url, 50);
    const autocannon = (await import("autocannon")).default;
    const samples: string[] = [`0 min ${rssMb(pid).toFixed(0)} MB`];
    const timer = setInterval(() => samples.push(`${samples.length} min ${rssMb(pid).toFixed(0)} MB`), 60_000);
    const result = await autocannon({
      url: server.url,
      connections: 20,
      duration: seconds,
      overallRate: rate,
      requests: [
        {
          method: "POST",
          path: "/payments/send",
          setupRequest: (request: any) => {
            const from = agents[Math.floor(Math.random() * agents.length)]!;
            let to = from;
            while (to === from) to = agents[Math.floor(Math.random() * agents.length)]!;
            return { ...request, headers: { "content-type": "application/json", authorization: `Bearer ${from.apiKey}` }, body: JSON.stringify({ toAgentId: to.id, amount: 0.01, currency: "USDC" }) };
          },
        },
      ],
    });
    clearInterval(timer);
    samples.push(`end ${rssMb(pid).toFixed(0)} MB`);
    console.log(`\nSoak: payments at ${rate}/s target for ${seconds} s (autocannon, 20 connections)`);
    console.log(`  achieved    ${result.requests.average.toFixed(0)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors`);
    console.log(`  latency     p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`);
    console.log(`  server RSS  ${samples.join(", ")}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

