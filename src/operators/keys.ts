// Named operators' keys (pa_…): made, listed, rotated and revoked by operators (src/admin/operators-routes.ts),
// and found by their hash at every request that comes with one (auth/keys.ts). Nothing caches them: a
// key is read from its row (one indexed lookup) on every request, so a revocation or a rotation is seen
// by every instance at the next request — operators' requests are few, and this boundary is worth the read.
import { clock, iso, isoOrNull } from "../clock";
import { containing, find, insert, narrowing, newestFirst, run, select, update, type Op, type PageWindow, type Row } from "../db";
import { invalidState, notFound } from "../errors";
import { secret, sha256Hex, uuid } from "../ids";
import { LAST_USE_PRECISION_MS } from "../keys/service";
import { BOOTSTRAP_OPERATOR, SYSTEM_OPERATOR } from "./audit";
import { operatorKeys } from "./schema";

type KeyRow = Row<typeof operatorKeys>;

export function operatorKeyView(row: KeyRow) {
  return { id: row.id, name: row.name, createdAt: iso(row.createdAt), lastUsedAt: isoOrNull(row.lastUsedAt), revokedAt: isoOrNull(row.revokedAt) };
}

/** The operator whose key in force has this hash, or null (unknown, rotated or revoked). */
export function* operatorByKeyHash(hash: string): Op<{ id: string; name: string; lastUsedAt: bigint | null } | null> {
  const [row] = yield* select(operatorKeys, "key_hash = ? AND revoked_at IS NULL", hash);
  return row ? { id: row.id, name: row.name, lastUsedAt: row.lastUsedAt } : null;
}

/** Records that a request came with the key now (to the minute, as restricted keys' last use: keys/service.ts). */
export function* touchOperatorKey(id: string): Op<void> {
  const now = clock.nowMs();
  yield* run("UPDATE operator_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)", now, id, now - LAST_USE_PRECISION_MS);
}

/** A name the audit log keeps for the bootstrap key and the service itself is no one else's. */
const RESERVED_NAMES = new Set([BOOTSTRAP_OPERATOR.name, SYSTEM_OPERATOR.name]);

/**
 * A write op: a new operator key for `name`, answered with the key itself (shown once). A name is one
 * person's while a key of theirs is in force (409 otherwise); the unique index on names in force makes
 * two creations at once one key (the other op runs again and finds the name taken).
 */
export function* createOperatorKey(name: string) {
  if (RESERVED_NAMES.has(name.toLowerCase())) throw invalidState(`"${name}" names what the audit log records without a key; choose another name`);
  const [taken] = yield* select(operatorKeys, "name = ? AND revoked_at IS NULL", name);
  if (taken) throw invalidState(`an operator key named "${name}" is in force (id ${taken.id}): revoke or rotate it, or choose another name`);
  const apiKey = secret("pa_");
  const row = yield* insert(operatorKeys, { id: uuid(), name, keyHash: sha256Hex(apiKey), createdAt: clock.nowMs() });
  return { ...operatorKeyView(row), apiKey };
}

/** The key row in force with this id, locked; 404 when there is none (unknown, or revoked: nothing left to change). */
function* keyInForce(id: string): Op<KeyRow> {
  const row = yield* find(operatorKeys, id, true);
  if (!row) throw notFound("operator key");
  if (row.revokedAt !== null) throw invalidState(`this operator key was revoked at ${iso(row.revokedAt)}`);
  return row;
}

/** A write op: a new key for the same operator (same id and name); the old one is refused from the next request on. */
export function* rotateOperatorKey(id: string) {
  yield* keyInForce(id);
  const apiKey = secret("pa_");
  const row = yield* update(operatorKeys, id, { keyHash: sha256Hex(apiKey), lastUsedAt: null });
  return { ...operatorKeyView(row), apiKey };
}

/** A write op: the key is refused from the next request on, on every instance. */
export function* revokeOperatorKey(id: string) {
  yield* keyInForce(id);
  return operatorKeyView(yield* update(operatorKeys, id, { revokedAt: clock.nowMs() }));
}

/** Every operator key, newest first; `q`: those whose name contains it (any case). */
export function listOperatorKeys(q: string | undefined, window: PageWindow) {
  const narrow = narrowing({ "LOWER(name) LIKE ? ESCAPE '\\'": q === undefined ? undefined : containing(q) });
  return newestFirst({ table: operatorKeys, scope: { where: "1 = 1", params: [] }, narrow }, window, operatorKeyView);
}
