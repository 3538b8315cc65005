// Fixed-window request counters, per agent and per client address (CONTRACT.md §4). In memory:
// a restart forgets the counts, which at worst lets a client use one extra window.
import { clock } from "../clock";
import { config } from "../config";
import { ApiError } from "../errors";

type Counter = { count: number };

let windowStartMs = 0;
let counters = new Map<string, Counter>();

/** Counts one request for `key`; throws 429 RATE_LIMIT_EXCEEDED past `limit`. */
export function consume(key: string, limit: number, headers: Record<string, string | number>): void {
  const windowMs = config.rateLimitWindowSeconds * 1000;
  const now = clock.nowMs();
  const currentWindow = Math.floor(now / windowMs) * windowMs;
  if (currentWindow !== windowStartMs) {
    windowStartMs = currentWindow;
    counters = new Map();
  }
  let counter = counters.get(key);
  if (!counter) {
    counter = { count: 0 };
    counters.set(key, counter);
  }
  counter.count += 1;
  const resetSeconds = Math.max(1, Math.ceil((currentWindow + windowMs - now) / 1000));
  headers["RateLimit-Limit"] = limit;
  headers["RateLimit-Remaining"] = Math.max(0, limit - counter.count);
  headers["RateLimit-Reset"] = resetSeconds;
  if (counter.count > limit) {
    throw new ApiError("RATE_LIMIT_EXCEEDED", `more than ${limit} requests in ${config.rateLimitWindowSeconds} s`, {
      retryAfterSeconds: resetSeconds,
    });
  }
}

/**
 * Requests the service makes to itself on a client's behalf (MCP tool calls) carry that client's
 * address here, so public routes keep limiting per client and not per process.
 */
export const onBehalfOf = new WeakMap<Request, string>();
