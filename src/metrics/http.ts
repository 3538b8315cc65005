// Observes every answer of the main port: one counter increment and one histogram observation per
// request, labelled by the route's template (Elysia's `route`). app.ts mounts it only when metrics are
// served (METRICS_PORT or METRICS_TOKEN), so a service without metrics does none of it.
import { Elysia } from "elysia";
import { observeRequest, UNMATCHED } from "./registry";

const arrived = new WeakMap<Request, number>();
/** Any other method a client sends is `other`: the label's values stay a fixed few. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export const httpMetrics = new Elysia({ name: "http-metrics" })
  .onRequest(({ request }) => {
    arrived.set(request, performance.now());
  })
  .onAfterResponse({ as: "global" }, ({ request, set, route }) => {
    const start = arrived.get(request);
    if (start === undefined) return;
    const status = typeof set.status === "number" ? set.status : 200;
    observeRequest(route || UNMATCHED, METHODS.has(request.method) ? request.method : "other", status, (performance.now() - start) / 1000);
  });

export type HttpMetrics = typeof httpMetrics;
