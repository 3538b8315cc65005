// Running the service (`agentbank serve`, and `agentbank dev` on top): boot → jobs → listen, then a short
// start log: where the API reference is and whether the operator routes are on. SIGTERM/SIGINT drain:
// stop accepting, answer what is in flight, stop the jobs, commit what is queued, close the database.
// The listener is the address's only one: Bun (through Elysia) sets SO_REUSEPORT, with which a second
// process on a taken port starts anyway and the kernel splits the connections between the two — two
// databases behind one address (issue 35). Without it a taken port stops the start: one line, exit 1.
import { recordStart } from "../admin/start";
import { createApp, type App } from "../app";
import { keysAtRestWarning } from "../chain/keys";
import { type Config } from "../config";
import { closeDatabase } from "../db";
import { drain } from "../http/lifecycle";
import { exitWith, flushLog, logAlways, logLine } from "../log";
import { registerJobs } from "../jobs";
import { stopMailer } from "../mail/dispatcher";
import { stopOwnerWebhooks } from "../owner-webhooks/dispatcher";
import { runAllJobs, startScheduler, stopScheduler } from "../scheduler";
import { VERSION } from "../version";
import { stopDispatcher } from "../webhooks/dispatcher";

/** HOST:PORT as written in a URL (an IPv6 address in brackets). */
const address = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;
/** The base URL the service answers on. */
const baseUrl = (host: string, port: number) => `http://${address(host, port)}`;

/**
 * The start log. Its first line, written at every LOG_LEVEL, is the one CONTRACT §1 promises: its text
 * holds `listening on http://HOST:PORT` followed by a space, so `grep -o 'listening on http://[^ ]*'`
 * finds the address inside the JSON as it did in plain text.
 */
function startLog(config: Config, url: string, metricsUrl: string | null): void {
  logAlways({
    level: "info",
    msg: `agentbank ${VERSION} listening on ${url} (API reference: ${url}/swagger, OpenAPI document: /swagger/json, owner console: /console, MCP: /mcp, for models: /llms.txt)`,
    version: VERSION,
    url,
  });
  logLine(
    config.adminApiKey
      ? { level: "info", msg: "operator routes: on (ADMIN_API_KEY): fund an agent with POST /admin/deposits, Authorization: Bearer <ADMIN_API_KEY>", operatorRoutes: true }
      : { level: "info", msg: "operator routes: off, every /admin route answers 404 (so agents cannot be funded with POST /admin/deposits): set ADMIN_API_KEY to turn them on", operatorRoutes: false },
  );
  if (metricsUrl) logLine({ level: "info", msg: `metrics on ${metricsUrl} (METRICS_PORT)`, metricsUrl });
  if (config.metrics?.token) logLine({ level: "info", msg: `metrics on ${url}/metrics with Authorization: Bearer <METRICS_TOKEN>` });
}

/** Listens on HOST:PORT alone; a taken port stops the start. */
function listen(app: App, config: Config): void {
  try {
    app.listen({ port: config.port, hostname: config.host, reusePort: false });
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    exitWith(1, `port ${config.port} is in use: another process listens on ${address(config.host, config.port)}`, { port: config.port, host: config.host });
  }
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
    exitWith(1, `metrics error: ${error.message}`);
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
    logLine({ level: "info", msg: "shutting down", signal });
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

  const plainKeys = keysAtRestWarning();
  if (plainKeys) logLine({ level: "warn", msg: plainKeys });
  await recordStart(config);
  listen(app, config);
  const url = baseUrl(config.host, app.server!.port!);
  // Links in mail point here unless PUBLIC_URL says where owners reach the service.
  config.publicUrl ??= url;
  startLog(config, url, metrics?.listener.url ?? null);
  // At once: whoever waits for the start-up line should not wait for the next flush.
  flushLog();
  // Catch up on what came due while the service was down, then keep to the schedule (also when the
  // catch-up failed: another instance running the jobs past the wait's bound is SERVICE_BUSY).
  void runAllJobs(true)
    .catch((error) => logLine({ level: "warn", msg: "start-up jobs not run", error: String((error as Error).message ?? error).split("\n")[0] }))
    .then(startScheduler);
  return { app, url };
}
