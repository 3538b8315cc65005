// Idempotency-Key (CONTRACT.md §4): the key and the stored answer are written in the same write op as
// the effect, so a retry after a crash or a timeout can never apply it twice.
import { clock } from "../clock";
import { get, run, type Query } from "../db";
import { ApiError, invalid } from "../errors";
import { sha256Hex } from "../ids";
import { canonicalJson } from "../json";
import { DAY_MS } from "../time";

const TTL_MS = DAY_MS;

/** A key stored at `createdAt` is kept 24 h: from then on it is absent, whether or not purged yet. */
const expired = (createdAt: bigint) => Number(createdAt) + TTL_MS <= clock.nowMs();

export type Outcome = { status: number; body: unknown; replayed: boolean };

export type IdempotencyScope = {
  agentId: string;
  key: string | undefined;
  /** Method and path: the same key on another route is another request. */
  route: string;
  body: unknown;
};

/** 1 to 255 visible ASCII characters. */
export const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** `name`: what the caller calls the key (the header, or an MCP tool's idempotencyKey argument). */
export function validateKey(key: string | undefined, name = "Idempotency-Key"): void {
  if (key !== undefined && !KEY_PATTERN.test(key)) throw invalid(`${name} must be 1 to 255 visible ASCII characters`);
}

// Canonical JSON: a retry that sends the same fields in another order (as a model regenerating a tool
// call does) is the same request.
const requestHashOf = (scope: IdempotencyScope) => sha256Hex(`${scope.route}\n${canonicalJson(scope.body ?? null)}`);

type StoredRow = { requestHash: string; status: bigint; body: string; createdAt: bigint };

/** The row stored for this key, expired or not, or null. */
function storedRow(scope: IdempotencyScope & { key: string }): Query<StoredRow | null> {
  return get<StoredRow>("SELECT request_hash AS requestHash, status, body, created_at AS createdAt FROM idempotency_keys WHERE agent_id = ? AND key = ?", scope.agentId, scope.key);
}

/** The answer a stored row replays, or null (none, or expired); a key used with another request is 409. */
function replayOf(scope: IdempotencyScope, stored: StoredRow | null): Outcome | null {
  if (!stored || expired(stored.createdAt)) return null;
  if (stored.requestHash !== requestHashOf(scope)) {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request");
  }
  return { status: Number(stored.status), body: JSON.parse(stored.body), replayed: true };
}

/** The stored answer for this key, or null; a key used with another request is 409. */
export function* storedOutcome(scope: IdempotencyScope & { key: string }): Query<Outcome | null> {
  return replayOf(scope, yield* storedRow(scope));
}

/**
 * A write op: keeps the answer for this key, in the same op as the effect. An expired row the purge
 * job has not dropped yet is deleted first: storedOutcome() treated it as absent, so this request is
 * new and its answer replaces the old one. Then a plain insert: if another transaction stored this key
 * meanwhile (another instance, the same retry twice, two requests reusing one expired key), the op
 * collides with it and runs again, and then finds that answer instead of applying the effect a second
 * time. (On PostgreSQL two ops deleting the same expired row queue on its lock; the second then finds
 * it gone, deletes nothing, and its insert collides with the first one's new row.) `expiredRowSeen`
 * false: the op looked the key up and found no row at all, so there is no expired one to delete (a row
 * stored meanwhile by another transaction is new, never expired): one statement fewer.
 */
export function* storeOutcome(scope: IdempotencyScope & { key: string }, status: number, body: unknown, expiredRowSeen = true): Query<void> {
  if (expiredRowSeen) yield* run("DELETE FROM idempotency_keys WHERE agent_id = ? AND key = ? AND created_at <= ?", scope.agentId, scope.key, clock.nowMs() - TTL_MS);
  yield* run(
    "INSERT INTO idempotency_keys (agent_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    scope.agentId,
    scope.key,
    requestHashOf(scope),
    status,
    JSON.stringify(body),
    clock.nowMs(),
  );
}

/** A write op: replaces the answer stored for this key (an x402 payment's, once the resource answered). */
export function* replaceOutcome(scope: IdempotencyScope & { key: string }, status: number, body: unknown): Query<void> {
  yield* run("UPDATE idempotency_keys SET status = ?, body = ? WHERE agent_id = ? AND key = ?", status, JSON.stringify(body), scope.agentId, scope.key);
}

/**
 * A write op that runs `effect` once per (agent, key). The key is unique in the database, so two
 * instances receiving the same key at once apply it once: the second transaction conflicts, is run
 * again, and then finds the first one's answer.
 */
export function* once<T>(scope: IdempotencyScope, status: number, effect: () => Query<T>): Query<Outcome> {
  if (scope.key === undefined) return { status, body: yield* effect(), replayed: false };
  const keyed = { ...scope, key: scope.key };
  const row = yield* storedRow(keyed);
  const stored = replayOf(keyed, row);
  if (stored) return stored;
  const body = yield* effect();
  yield* storeOutcome(keyed, status, body, row !== null);
  return { status, body, replayed: false };
}

/** Drops keys older than 24 h (a scheduler job's write op). */
export function* purgeExpiredKeys(): Query<void> {
  yield* run("DELETE FROM idempotency_keys WHERE created_at <= ?", clock.nowMs() - TTL_MS);
}
