// Idempotency-Key (CONTRACT.md §4): the key and the stored answer are written in the same write op as
// the effect, so a retry after a crash or a timeout can never apply it twice.
import { clock } from "../clock";
import { sqlite } from "../db";
import { ApiError, invalid } from "../errors";
import { sha256Hex } from "../ids";
import { canonicalJson } from "../json";

const TTL_MS = 24 * 60 * 60 * 1000;

export type Outcome = { status: number; body: unknown; replayed: boolean };

export type IdempotencyScope = {
  agentId: string;
  key: string | undefined;
  /** Method and path: the same key on another route is another request. */
  route: string;
  body: unknown;
};

export function validateKey(key: string | undefined): void {
  if (key !== undefined && (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))) {
    throw invalid("Idempotency-Key must be 1 to 255 visible ASCII characters");
  }
}

// Canonical JSON: a retry that sends the same fields in another order (as a model regenerating a tool
// call does) is the same request.
const requestHashOf = (scope: IdempotencyScope) => sha256Hex(`${scope.route}\n${canonicalJson(scope.body ?? null)}`);

/** The stored answer for this key, or null; a key used with another request is 409. */
export function storedOutcome(scope: IdempotencyScope & { key: string }): Outcome | null {
  const stored = sqlite
    .query("SELECT request_hash AS requestHash, status, body, created_at AS createdAt FROM idempotency_keys WHERE agent_id = ? AND key = ?")
    .get(scope.agentId, scope.key) as { requestHash: string; status: bigint; body: string; createdAt: bigint } | null;
  if (!stored || Number(stored.createdAt) + TTL_MS <= clock.nowMs()) return null;
  if (stored.requestHash !== requestHashOf(scope)) {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request");
  }
  return { status: Number(stored.status), body: JSON.parse(stored.body), replayed: true };
}

/** Inside write(): keeps the answer for this key, in the same op as the effect. */
export function storeOutcome(scope: IdempotencyScope & { key: string }, status: number, body: unknown): void {
  sqlite
    .query("INSERT OR REPLACE INTO idempotency_keys (agent_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(scope.agentId, scope.key, requestHashOf(scope), status, JSON.stringify(body), clock.nowMs());
}

/** Runs `effect` once per (agent, key); must be called inside write(). */
export function once(scope: IdempotencyScope, status: number, effect: () => unknown): Outcome {
  if (scope.key === undefined) return { status, body: effect(), replayed: false };
  const keyed = { ...scope, key: scope.key };
  const stored = storedOutcome(keyed);
  if (stored) return stored;
  const body = effect();
  storeOutcome(keyed, status, body);
  return { status, body, replayed: false };
}

/** Drops keys older than 24 h (a scheduler job). */
export function purgeExpiredKeys(): void {
  sqlite.query("DELETE FROM idempotency_keys WHERE created_at < ?").run(clock.nowMs() - TTL_MS);
}
