// Idempotency-Key (CONTRACT.md §4): the key and the stored answer are written in the same write op as
// the effect, so a retry after a crash or a timeout can never apply it twice.
import { clock } from "../clock";
import { sqlite } from "../db";
import { ApiError, invalid } from "../errors";
import { sha256Hex } from "../ids";

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

/** Runs `effect` once per (agent, key); must be called inside write(). */
export function once(scope: IdempotencyScope, status: number, effect: () => unknown): Outcome {
  if (scope.key === undefined) return { status, body: effect(), replayed: false };
  const requestHash = sha256Hex(`${scope.route}\n${JSON.stringify(scope.body ?? null)}`);
  const now = clock.nowMs();
  const stored = sqlite
    .query("SELECT request_hash AS requestHash, status, body, created_at AS createdAt FROM idempotency_keys WHERE agent_id = ? AND key = ?")
    .get(scope.agentId, scope.key) as { requestHash: string; status: bigint; body: string; createdAt: bigint } | null;
  if (stored && Number(stored.createdAt) + TTL_MS > now) {
    if (stored.requestHash !== requestHash) {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request");
    }
    return { status: Number(stored.status), body: JSON.parse(stored.body), replayed: true };
  }
  const body = effect();
  sqlite
    .query("INSERT OR REPLACE INTO idempotency_keys (agent_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(scope.agentId, scope.key, requestHash, status, JSON.stringify(body), now);
  return { status, body, replayed: false };
}

/** Drops keys older than 24 h (a scheduler job). */
export function purgeExpiredKeys(): void {
  sqlite.query("DELETE FROM idempotency_keys WHERE created_at < ?").run(clock.nowMs() - TTL_MS);
}
