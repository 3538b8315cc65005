// Running the service (`agentbank serve`, and `agentbank dev` on top): boot → jobs → listen, then a short
// start log: where the API reference is and whether the operator routes are on. SIGTERM/SIGINT drain:
// stop accepting, answer what is in flight, stop the jobs, commit what is queued, close the database.
import { createApp, type App } from "../app";
import { type Config } from "../config";
import { closeDatabase } from "../db";
import { drain } from "../http/lifecycle";
import { flushLog, logLine } from "../log";
import { MetricsPortTaken, startMetrics } from "../metrics/serve";
import { registerJobs } from "../jobs";
import { stopMailer } from "../mail/dispatcher";
import { stopOwnerWebhooks } from "../owner-webhooks/dispatcher";
import { runAllJobs, startScheduler, stopScheduler } from "../scheduler";
import { VERSION } from "../version";
import { stopDispatcher } from "../webhooks/dispatcher";

/** The base URL the service answers on (an IPv6 address in brackets). */
const baseUrl = (host: string, port: number) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

function startLog(config: Config, url: string, metricsUrl: string | null): string[] {
  const operator = config.adminApiKey
    ? "operator routes: on (ADMIN_API_KEY): fund an agent with POST /admin/deposits, Authorization: Bearer <ADMIN_API_KEY>"
    : "operator routes: off, every /admin route answers 404 (so agents cannot be funded with POST /admin/deposits): set ADMIN_API_KEY to turn them on";
  const metrics = [metricsUrl && `metrics on ${metricsUrl} (METRICS_PORT)`, config.metrics?.token && `metrics on ${url}/metrics with Authorization: Bearer <METRICS_TOKEN>`];
  return [
    `agentbank ${VERSION} listening on ${url}`,
    `API reference: ${url}/swagger (OpenAPI document: /swagger/json), owner console: /console, MCP: /mcp, for models: /llms.txt`,
    operator,
    ...metrics.filter((line): line is string => typeof line === "string"),
  ];
}

export async function serve(config: Config): Promise<{ app: App; url: string }> {
  registerJobs();
  let metrics: ReturnType<typeof startMetrics> | null = null;
  try {
    metrics = config.metrics && startMetrics(config.metrics);
  } catch (error) {
    if (!(error instanceof MetricsPortTaken)) throw error;
    console.error(`agentbank: metrics error: ${error.message}`);
    process.exit(1);
  }
  const app = createApp();
  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ level: "info", msg: "shutting down", signal }));
    stopScheduler();
    await drain();
    // Stops listening; resolves once every request still running has been answered.
    await app.stop();
    metrics?.stop();
    stopDispatcher();
    await Promise.all([stopMailer(), stopOwnerWebhooks()]);
    await closeDatabase();
    flushLog();
    process.exit(0);
  }
  // Before listening: a stop that comes right after the start log is a clean stop too.
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  app.listen({ port: config.port, hostname: config.host });
  const url = baseUrl(config.host, app.server!.port!);
  // Links in mail point here unless PUBLIC_URL says where owners reach the service.
  config.publicUrl ??= url;
  console.log(startLog(config, url, metrics?.url ?? null).join("\n"));
  // Catch up on what came due while the service was down, then keep to the schedule (also when the
  // catch-up failed: another instance running the jobs past the wait's bound is SERVICE_BUSY).
  void runAllJobs(true)
    .catch((error) => logLine({ level: "warn", msg: "start-up jobs not run", error: String((error as Error).message ?? error).split("\n")[0] }))
    .then(startScheduler);
  return { app, url };
}
