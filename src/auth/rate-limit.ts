// Fixed-window request counters, per agent and per client address (CONTRACT.md §4). In memory:
// a restart forgets the counts, which at worst lets a client use one extra window.
import type { AgentRow } from "../agents/service";
import { clock } from "../clock";
import { config } from "../config";
import { ApiError } from "../errors";

type Counter = { count: number };
type Headers = Record<string, string | number>;

let windowStartMs = 0;
let counters = new Map<string, Counter>();

/** Counts `requests` requests for `key` (a JSON-RPC batch is several); throws 429 RATE_LIMIT_EXCEEDED past `limit`. */
export function consume(key: string, limit: number, headers: Headers, requests = 1): void {
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
  counter.count += requests;
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

/** Counts `requests` against the agent's own limit (RATE_LIMIT_DEFAULT unless the operator set one). */
export function consumeAgent(agent: AgentRow, headers: Headers, requests = 1): void {
  const limit = agent.rateLimit === null ? config.rateLimitDefault : Number(agent.rateLimit);
  consume(`agent:${agent.id}`, limit, headers, requests);
}

/**
 * Requests the service makes to itself on a client's behalf (MCP tool calls) carry that client's
 * address here, so public routes keep limiting per client and not per process.
 */
export const onBehalfOf = new WeakMap<Request, string>();

type Listener = { requestIP(request: Request): { address: string } | null } | null;
/** The client's address: the one a request made on its behalf carries, else the socket's. */
export const clientAddressOf = (request: Request, server: Listener | undefined): string => onBehalfOf.get(request) ?? server?.requestIP(request)?.address ?? "unknown";
