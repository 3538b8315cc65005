// The registry /metrics renders (prom-client, Prometheus's text format) and the per-request metrics. Every
// name starts with agentbank_; the process's own (memory, CPU, event-loop lag, from prom-client's
// default metrics) too, so one prefix finds all of this service's series.
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export const registry = new Registry();
export const PREFIX = "agentbank_";

/**
 * `route` is the route's template (`/bets/:betId`), never the path: a label value per id would be a new
 * series per id, kept in memory for good. A request no route matched (404, 405, refused before routing) is `unmatched`.
 */
const requests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: "HTTP requests answered, by route template, method and status",
  labelNames: ["route", "method", "status"] as const,
  registers: [registry],
});
const durations = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: "Time from a request's arrival to its answer, by route template",
  labelNames: ["route"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const UNMATCHED = "unmatched";

export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  requests.inc({ route, method, status }, 1);
  durations.observe({ route }, seconds);
}

let started = false;
/** The process metrics sample the event loop from here on: called once, when a /metrics listener or route is configured. */
export function startProcessMetrics(): void {
  if (started) return;
  started = true;
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
}
