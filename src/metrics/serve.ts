// Where /metrics is served (config.metrics): its own listener on METRICS_HOST:METRICS_PORT, which
// answers GET /metrics and nothing else (404), and, with METRICS_TOKEN, GET /metrics on the main port
// for a bearer of the token (auth/keys.ts: 404 without it configured, 401 without the token). Never
// open by accident: unset, neither exists. cli/serve.ts imports this folder only when metrics are
// configured: loading prom-client takes 100-150 ms of every start.
import { Elysia } from "elysia";
import { assertMetricsToken } from "../auth/keys";
import { registerServiceMetrics } from "./gauges";
export { httpMetrics } from "./http";
import { registry, startProcessMetrics } from "./registry";
import { forgetState } from "./state";

export class MetricsPortTaken extends Error {}

async function metricsAnswer(): Promise<Response> {
  forgetState();
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
}

/** GET /metrics on the main port (mounted only with METRICS_TOKEN); not part of the API's document. */
export type MetricsRoute = typeof metricsRoute;
export const metricsRoute = new Elysia({ name: "metrics-route" }).get(
  "/metrics",
  ({ headers }) => {
    assertMetricsToken(headers.authorization);
    return metricsAnswer();
  },
  { detail: { hide: true } },
);

let started = false;

/**
 * Registers every metric (once the database is open) and, with a METRICS_PORT, opens its listener;
 * returns the listener's URL. A taken port stops the start (MetricsPortTaken).
 */
export function startMetrics(settings: { host: string; port: number | null }): { url: string | null; stop: () => void } {
  if (!started) {
    started = true;
    startProcessMetrics();
    registerServiceMetrics();
  }
  if (settings.port === null) return { url: null, stop: () => {} };
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: settings.host,
      port: settings.port,
      reusePort: false,
      fetch: (request) => {
        const path = new URL(request.url).pathname;
        if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) return new Response("not found\n", { status: 404 });
        return metricsAnswer();
      },
    });
  } catch (error) {
    throw new MetricsPortTaken(`METRICS_PORT ${settings.port} on ${settings.host} cannot be opened: ${(error as Error).message}`);
  }
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  return { url: `http://${host}:${server.port}/metrics`, stop: () => void server.stop(true) };
}
