// Running the service (`agentbank serve`, and `agentbank dev` on top): boot → jobs → listen, then a short
// start log: where the API reference is and whether the operator routes are on. SIGTERM/SIGINT drain:
// stop accepting, answer what is in flight, stop the jobs, commit what is queued, close the database.
import { createApp, type App } from "../app";
import { type Config } from "../config";
import { closeDatabase } from "../db";
import { drain } from "../http/lifecycle";
import { flushLog, logLine } from "../log";
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

/**
 * The metrics' module, loaded only when they are served (prom-client adds 100-150 ms to a start): its
 * listener started, its plugins for the app. A METRICS_PORT that cannot be opened stops the start.
 */
async function metricsOf(settings: NonNullable<Config["metrics"]>) {
  const served = await import("../metrics/serve");
  try {
    return { listener: served.startMetrics(settings), plugins: { http: served.httpMetrics, route: settings.token ? served.metricsRoute : null } };
  } catch (error) {
    if (!(error instanceof served.MetricsPortTaken)) throw error;
    console.error(`agentbank: metrics error: ${error.message}`);
    process.exit(1);
  }
}

export async function serve(config: Config): Promise<{ app: App; url: string }> {
  registerJobs();
  const metrics = config.metrics ? await metricsOf(config.metrics) : null;
  const app = createApp(metrics?.plugins ?? null);
  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ level: "info", msg: "shutting down", signal }));
    stopScheduler();
    await drain();
    // Stops listening; resolves once every request still running has been answered.
    await app.stop();
    metrics?.listener.stop();
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
  console.log(startLog(config, url, metrics?.listener.url ?? null).join("\n"));
  // Catch up on what came due while the service was down, then keep to the schedule (also when the
  // catch-up failed: another instance running the jobs past the wait's bound is SERVICE_BUSY).
  void runAllJobs(true)
    .catch((error) => logLine({ level: "warn", msg: "start-up jobs not run", error: String((error as Error).message ?? error).split("\n")[0] }))
    .then(startScheduler);
  return { app, url };
}
