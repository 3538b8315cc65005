// Idempotency-Key (CONTRACT.md §4): the key and the stored answer are written in the same write op as
// the effect, so a retry after a crash or a timeout can never apply it twice. A key belongs to the
// acting key (CONTRACT.md §12): the same Idempotency-Key sent with two keys of one agent (a restricted
// key and another, or the agent's own) is two requests, each checked against its own key's limits,
// and neither replays the other's answer.
import { clock } from "../clock";
import { insertOnly, run, select, type Op, type Row } from "../db";
import { ApiError, invalid } from "../errors";
import { type AgentId, sha256Hex } from "../ids";
import { canonicalJson, jsonText, readJson } from "../json";
import { DAY_MS } from "../time";
import { idempotencyKeys } from "./schema";

const TTL_MS = DAY_MS;

/** A key stored at `createdAt` is kept 24 h: from then on it is absent, whether or not purged yet. */
const expired = (createdAt: bigint) => Number(createdAt) + TTL_MS <= clock.nowMs();

export type Outcome = { status: number; body: unknown; replayed: boolean };

export type IdempotencyScope = {
  agentId: AgentId;
  /** The restricted key the request came with, null for the agent's own key (and the owner acting as it). */
  keyId: string | null;
  /**
   * The key whose Idempotency-Keys these are: the restricted key, or for an MCP host's token the grant
   * it was minted from (a host retries with a renewed token: the same request); null: the agent key.
   */
  scopeKeyId: string | null;
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

type StoredKey = Row<typeof idempotencyKeys>;

/** The acting_key of the agent's own key; a restricted key's is its id. */
const AGENT_KEY = "agent";
/**
 * The acting_key of rows stored before keys were told apart (migration sqlite 0018, pg 0015): they do
 * not say which key made them, so any key of the agent replays them, as it did; they expire within 24 h.
 */
const ANY_KEY = "any";
const actingKeyOf = (scope: IdempotencyScope) => scope.scopeKeyId ?? AGENT_KEY;

/** The row of this key for this acting key (or from before keys were told apart), expired or not, or null. */
function* storedKey(scope: IdempotencyScope & { key: string }): Op<StoredKey | null> {
  const rows = yield* select(idempotencyKeys, "agent_id = ? AND key = ? AND acting_key IN (?, ?)", scope.agentId, scope.key, actingKeyOf(scope), ANY_KEY);
  return rows.find((row) => row.actingKey !== ANY_KEY) ?? rows[0] ?? null;
}

/** The answer `stored` holds for this request, or null (none, or expired); a key used with another request is 409. */
function outcomeOf(stored: StoredKey | null, scope: IdempotencyScope & { key: string }): Outcome | null {
  if (!stored || expired(stored.createdAt)) return null;
  if (stored.requestHash !== requestHashOf(scope)) {
    throw new ApiError("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different request");
  }
  return { status: Number(stored.status), body: readJson(stored.body), replayed: true };
}

/** The stored answer for this key, or null; a key used with another request is 409. */
export function* storedOutcome(scope: IdempotencyScope & { key: string }): Op<Outcome | null> {
  return outcomeOf(yield* storedKey(scope), scope);
}

/**
 * A write op: keeps the answer for this key, in the same op as the effect. An expired row the purge
 * job has not dropped yet is deleted first: storedOutcome() treated it as absent, so this request is
 * new and its answer replaces the old one. Then a plain insert: if another transaction stored this key
 * meanwhile (another instance, the same retry twice, two requests reusing one expired key), the op
 * collides with it and runs again, and then finds that answer instead of applying the effect a second
 * time. (On PostgreSQL two ops deleting the same expired row queue on its lock; the second then finds
 * it gone, deletes nothing, and its insert collides with the first one's new row.) `maybeExpired`: false
 * when this op read the key and found no row, so there is nothing to delete (a row inserted since is
 * not expired: the insert collides with it as above).
 */
export function* storeOutcome(scope: IdempotencyScope & { key: string }, status: number, body: unknown, maybeExpired = true): Op<void> {
  const actingKey = actingKeyOf(scope);
  if (maybeExpired) {
    const cutoff = clock.nowMs() - TTL_MS;
    yield* run("DELETE FROM idempotency_keys WHERE agent_id = ? AND key = ? AND acting_key IN (?, ?) AND created_at <= ?", scope.agentId, scope.key, actingKey, ANY_KEY, cutoff);
  }
  yield* insertOnly(idempotencyKeys, { agentId: scope.agentId, key: scope.key, actingKey, requestHash: requestHashOf(scope), status, body: jsonText(body), createdAt: clock.nowMs() });
}

/** A write op: replaces the answer stored for this key (an x402 payment's, once the resource answered). */
export function* replaceOutcome(scope: IdempotencyScope & { key: string }, status: number, body: unknown): Op<void> {
  yield* run("UPDATE idempotency_keys SET status = ?, body = ? WHERE agent_id = ? AND key = ? AND acting_key = ?", status, JSON.stringify(body), scope.agentId, scope.key, actingKeyOf(scope));
}

/**
 * A write op that runs `effect` once per (agent, acting key, key). The key is unique in the database, so two
 * instances receiving the same key at once apply it once: the second transaction conflicts, is run
 * again, and then finds the first one's answer.
 */
export function* once<T>(scope: IdempotencyScope, status: number, effect: () => Op<T>): Op<Outcome> {
  if (scope.key === undefined) return { status, body: yield* effect(), replayed: false };
  const keyed = { ...scope, key: scope.key };
  const row = yield* storedKey(keyed);
  const stored = outcomeOf(row, keyed);
  if (stored) return stored;
  const body = yield* effect();
  yield* storeOutcome(keyed, status, body, row !== null);
  return { status, body, replayed: false };
}

/** Drops keys older than 24 h (a scheduler job's write op). */
export function* purgeExpiredKeys(): Op<void> {
  yield* run("DELETE FROM idempotency_keys WHERE created_at <= ?", clock.nowMs() - TTL_MS);
}
