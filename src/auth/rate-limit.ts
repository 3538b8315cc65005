// Fixed-window request counters, per agent and per client address (CONTRACT.md §4). In memory:
// a restart forgets the counts, which at worst lets a client use one extra window.
//
// An agent's limit L (RATE_LIMIT_DEFAULT, or the operator's for that agent) is shared out so that a
// restricted key cannot lock the agent out of its own API, while one agent stays bounded: the agent
// key's requests count in the agent's window (L); each restricted key's in a window of its own
// (⌈L/2⌉), then, if that let them through, in one window of all the agent's restricted keys together
// (L). A leaked key thus spends at most half of what the agent's keys may, never the agent key's
// share, and one agent makes at most 2L requests per window (per instance).
import type { AgentRow } from "../agents/service";
import { clock } from "../clock";
import { config } from "../config";
import { ApiError } from "../errors";

type Counter = { count: number };
type Headers = Record<string, string | number>;
type Bucket = { key: string; limit: number };

let windowStartMs = 0;
let counters = new Map<string, Counter>();

/**
 * Counts `requests` requests (a JSON-RPC batch is several) in each bucket in turn; the first they
 * take past its limit refuses them with 429 RATE_LIMIT_EXCEEDED, and the buckets after it count
 * nothing. The RateLimit-* headers describe the bucket that applied: the one that refused, else the
 * one with the fewest requests left.
 */
function consumeAll(buckets: Bucket[], headers: Headers, requests: number): void {
  const windowMs = config.rateLimitWindowSeconds * 1000;
  const now = clock.nowMs();
  const currentWindow = Math.floor(now / windowMs) * windowMs;
  if (currentWindow !== windowStartMs) {
    windowStartMs = currentWindow;
    counters = new Map();
  }
  const resetSeconds = Math.max(1, Math.ceil((currentWindow + windowMs - now) / 1000));
  headers["RateLimit-Reset"] = resetSeconds;
  let fewestLeft = Infinity;
  for (const { key, limit } of buckets) {
    let counter = counters.get(key);
    if (!counter) {
      counter = { count: 0 };
      counters.set(key, counter);
    }
    counter.count += requests;
    const left = Math.max(0, limit - counter.count);
    if (left < fewestLeft) {
      fewestLeft = left;
      headers["RateLimit-Limit"] = limit;
      headers["RateLimit-Remaining"] = left;
    }
    if (counter.count > limit) {
      headers["RateLimit-Limit"] = limit;
      headers["RateLimit-Remaining"] = 0;
      throw new ApiError("RATE_LIMIT_EXCEEDED", `more than ${limit} requests in ${config.rateLimitWindowSeconds} s`, {
        retryAfterSeconds: resetSeconds,
      });
    }
  }
}

/** Counts `requests` requests for `key` (a client address); throws 429 RATE_LIMIT_EXCEEDED past `limit`. */
export function consume(key: string, limit: number, headers: Headers, requests = 1): void {
  consumeAll([{ key, limit }], headers, requests);
}

/**
 * Counts `requests` against the agent's limit (RATE_LIMIT_DEFAULT unless the operator set one), as
 * the key that made them: `keyId` a restricted key's id, null for the agent key (see above).
 */
export function consumeAgent(agent: AgentRow, keyId: string | null, headers: Headers, requests = 1): void {
  const limit = agent.rateLimit === null ? config.rateLimitDefault : Number(agent.rateLimit);
  const buckets =
    keyId === null
      ? [{ key: `agent:${agent.id}`, limit }]
      : [
          { key: `key:${keyId}`, limit: Math.ceil(limit / 2) },
          { key: `keys-of:${agent.id}`, limit },
        ];
  consumeAll(buckets, headers, requests);
}

/**
 * Requests the service makes to itself on a client's behalf (MCP tool calls) carry that client's
 * address here, so public routes keep limiting per client and not per process.
 */
export const onBehalfOf = new WeakMap<Request, string>();

type Listener = { requestIP(request: Request): { address: string } | null } | null;
/** The client's address: the one a request made on its behalf carries, else the socket's. */
export const clientAddressOf = (request: Request, server: Listener | undefined): string => onBehalfOf.get(request) ?? server?.requestIP(request)?.address ?? "unknown";
