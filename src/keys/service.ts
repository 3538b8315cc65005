// Restricted keys (pp_r_…) once made (keys/create.ts makes them): what a key allows, whether it is in
// force along the chain of keys it was made from, finding it by its hash, its last use, its view with
// what it has spent, the list, and revocation — at once, with every key made from it and what they left
// in escrow (keys/commitments.ts). A key's budgets and allowlist are checked on each outflow
// (outflows/budget.ts), with its chain in force.
import { clock, iso, isoOrNull } from "../clock";
import { actingKey, cacheKeys, FOR_UPDATE, find, forget, get, newestFirst, remember, run, select, update, type PageWindow, type Op, type Row } from "../db";
import { ApiError, notFound } from "../errors";
import { dictionary, readJson } from "../json";
import { CURRENCIES, toMajor, type Currency } from "../money";
import { endCommitmentsOf } from "./commitments";
import { agentKeys, keySpending } from "./schema";
import type { Scope } from "./scopes";
import { type AgentId } from "../ids";

/** A key made by a key made by a key …: the chain its outflows are counted along stays short. */
export const MAX_KEY_DEPTH = 4;

/** Per currency, in minor units; a currency without an entry has no budget of that kind. */
export type Budget = { perTransaction?: bigint; total?: bigint };
export type Budgets = Partial<Record<Currency, Budget>>;

export type KeyRow = Row<typeof agentKeys>;

export const scopesOf = (row: KeyRow): Scope[] => readJson(row.scopes);
/** What a route check needs of a restricted key (a row, or its view); null: the agent key, which opens every route. */
export type KeyScopes = { id: string; scopes: readonly Scope[] };
export const keyScopes = (row: KeyRow | null): KeyScopes | null => row && { id: row.id, scopes: scopesOf(row) };
export const allowlistOf = (row: KeyRow): string[] | null => (row.allowlist === null ? null : readJson(row.allowlist));

export function budgetsOf(row: KeyRow): Budgets {
  const stored = readJson(row.budgets);
  const budgets: Budgets = dictionary();
  for (const currency of CURRENCIES) {
    const budget = stored[currency];
    if (!budget) continue;
    budgets[currency] = {
      ...(budget.perTransaction !== undefined ? { perTransaction: BigInt(budget.perTransaction) } : {}),
      ...(budget.total !== undefined ? { total: BigInt(budget.total) } : {}),
    };
  }
  return budgets;
}

/** A key is in force until it expires or is revoked; so is every key it was made from. */
export const inForce = (row: KeyRow, now = clock.nowMs()) => row.revokedAt === null && row.expiresAt > now;

/** The key and the keys it was made from, nearest first. */
export function* keyChain(id: string): Op<KeyRow[]> {
  const chain: KeyRow[] = [];
  for (let next: string | null = id; next !== null && chain.length <= MAX_KEY_DEPTH; ) {
    const row: KeyRow | null = yield* find(agentKeys, next);
    if (!row) break;
    chain.push(row);
    next = row.parentKeyId;
  }
  return chain;
}

/** Whether key `id` and every key it was made from are in force: a look (nothing locked), for what ends a key's commitments; a movement checks chainInForce. */
export function* keyChainInForce(id: string, now = clock.nowMs()): Op<boolean> {
  return (yield* keyChain(id)).every((row) => inForce(row, now));
}

/**
 * In the write that moves money for key `id`: its chain, nearest first, locked (ancestors first, as a
 * revocation walks them) and every key of it in force — so a revocation either commits before this
 * write, which then refuses, or waits for it. 403 KEY_INACTIVE names the key that ended and when.
 */
export function* chainInForce(id: string): Op<KeyRow[]> {
  const ids = (yield* keyChain(id)).map((row) => row.id);
  const locked = yield* select(agentKeys, `id IN (${ids.map(() => "?").join(", ")}) ORDER BY created_at ${FOR_UPDATE}`, ...ids);
  const chain = ids.map((wanted) => locked.find((row) => row.id === wanted)!);
  const now = clock.nowMs();
  const ended = chain.find((row) => !inForce(row, now));
  if (ended) {
    const how = ended.revokedAt !== null ? `was revoked at ${iso(ended.revokedAt)}` : `expired at ${iso(ended.expiresAt)}`;
    const whose = ended.id === id ? "" : ` (the key it was made from)`;
    throw new ApiError("KEY_INACTIVE", `the restricted key "${ended.name}"${whose} ${how}: nothing moves on its behalf any more`, {
      details: { keyId: ended.id, status: ended.revokedAt !== null ? "REVOKED" : "EXPIRED" },
    });
  }
  return chain;
}

/**
 * The key a commitment made with key `id` is recorded against: that key, or for an MCP host's access
 * token (an hour long, renewed within its grant) the grant it was minted from, so that what the host
 * commits to lasts as long as the owner's grant, not as long as one token.
 */
export function* committingKeyOf(id: string): Op<KeyRow> {
  const key = (yield* find(agentKeys, id))!;
  return key.purpose === "oauth_token" && key.parentKeyId !== null ? (yield* find(agentKeys, key.parentKeyId))! : key;
}

/** The key what the acting request commits to is recorded against (committingKeyOf); null for the agent key. */
export function* committingKey(): Op<KeyRow | null> {
  const keyId = yield* actingKey();
  return keyId === null ? null : yield* committingKeyOf(keyId);
}

/** Its id, as a commitment's row records it. */
export function* committingKeyId(): Op<string | null> {
  return (yield* committingKey())?.id ?? null;
}

/** When something the acting request commits to must end at the latest: `endsAt`, or its key's expiry if sooner (a key never outlives the key it was made from). */
export function* untilCommittingKeyEnds(endsAt: number): Op<number> {
  const key = yield* committingKey();
  return key === null ? endsAt : Math.min(endsAt, Number(key.expiresAt));
}

/** The key in force this hash is of, or null (unknown, revoked, expired, or made from one that is). */
export function* restrictedKeyByHash(hash: string): Op<KeyRow | null> {
  const row = yield* remember(cacheKeys.restrictedKey(hash), "instance", function* () {
    const [found] = yield* select(agentKeys, "key_hash = ?", hash);
    return found ?? null;
  });
  if (!row || !inForce(row)) return null;
  if (row.parentKeyId === null) return row;
  return (yield* keyChainInForce(row.parentKeyId)) ? row : null;
}

/** A key's last use is kept to the minute: a request writes it only if the one written is older. */
export const LAST_USE_PRECISION_MS = 60_000;
export const lastUseIsStale = (row: Pick<KeyRow, "lastUsedAt">, now = clock.nowMs()) => row.lastUsedAt === null || now - Number(row.lastUsedAt) >= LAST_USE_PRECISION_MS;

/** Records that a request came with the key now (at most once a minute per key; concurrent requests: one write). */
export function* touchKey(row: KeyRow): Op<void> {
  const now = clock.nowMs();
  yield* run("UPDATE agent_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)", now, row.id, now - LAST_USE_PRECISION_MS);
  // The cached row (SQLite) is read again on the next request, with this time in it.
  yield* forget(cacheKeys.restrictedKey(row.keyHash));
}

/** Id → name of those of `ids` that are keys. */
export function* keyNamesOf(ids: (string | null)[]): Op<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = yield* select(agentKeys, `id IN (${wanted.map(() => "?").join(", ")})`, ...wanted);
  return new Map(rows.map((row) => [row.id, row.name]));
}

export function* spentByKey(keyId: string): Op<Map<Currency, bigint>> {
  const rows = yield* select(keySpending, "key_id = ?", keyId);
  return new Map(rows.map((row) => [row.currency, row.spent]));
}

/**
 * Revokes `roots` and every key made from them, at once, and ends what they left in escrow
 * (endCommitmentsOf); returns how many keys it revoked that were not revoked yet.
 */
function* revokeTrees(roots: KeyRow[]): Op<number> {
  const now = clock.nowMs();
  const revoked: string[] = [];
  for (let level = roots; level.length; ) {
    const next: KeyRow[] = [];
    for (const key of level) {
      if (key.revokedAt === null) {
        yield* update(agentKeys, key.id, { revokedAt: now });
        revoked.push(key.id);
      }
      yield* forget(cacheKeys.restrictedKey(key.keyHash));
      next.push(...(yield* select(agentKeys, "parent_key_id = ?", key.id)));
    }
    level = next;
  }
  yield* endCommitmentsOf(revoked);
  return revoked.length;
}

/**
 * Revokes a key of `agentId` and every key made from it, at once. A restricted key may revoke only
 * itself and the keys made from it (`by`); the agent and owner keys any of the agent's keys.
 */
export function* revokeKey(agentId: AgentId, id: string, by: KeyRow | null): Op<KeyRow> {
  const row = yield* find(agentKeys, id, true);
  if (!row || row.agentId !== agentId) throw notFound("key");
  if (by && row.id !== by.id && !(yield* keyChain(row.id)).some((ancestor) => ancestor.id === by.id)) throw notFound("key");
  yield* revokeTrees([row]);
  return (yield* find(agentKeys, id))!;
}

/**
 * When the agent key or the owner key whose hash is `madeWith` is replaced: revokes every restricted
 * key it made and every key made from those (keys made before this was recorded too: either rotation
 * ends them); returns how many.
 */
export function* revokeKeysMadeWith(agentId: AgentId, madeWith: string): Op<number> {
  const roots = yield* select(agentKeys, `agent_id = ? AND parent_key_id IS NULL AND (made_with = ? OR made_with IS NULL) AND revoked_at IS NULL ${FOR_UPDATE}`, agentId, madeWith);
  return yield* revokeTrees(roots);
}

/** Every restricted key of the agent, and so every key made from one (MCP hosts' grants and their tokens too), revoked at once; returns how many. */
export function* revokeAllKeys(agentId: AgentId): Op<number> {
  return yield* revokeTrees(yield* select(agentKeys, `agent_id = ? AND parent_key_id IS NULL AND revoked_at IS NULL ${FOR_UPDATE}`, agentId));
}

/** How many of the agent's keys are in force, OAuth access tokens aside: what MAX_ACTIVE_KEYS bounds. */
export function* activeKeyCount(agentId: AgentId): Op<number> {
  const row = yield* get<{ n: bigint }>("SELECT COUNT(*) AS n FROM agent_keys WHERE agent_id = ? AND revoked_at IS NULL AND expires_at > ? AND purpose <> 'oauth_token'", agentId, clock.nowMs());
  return Number(row!.n);
}

export function* keyView(row: KeyRow) {
  const spent = yield* spentByKey(row.id);
  const budgets = dictionary<{ perTransaction: number | null; total: number | null; spent: number; remaining: number | null }>();
  const configured = budgetsOf(row);
  for (const currency of CURRENCIES) {
    const budget = configured[currency];
    const used = spent.get(currency);
    if (!budget && used === undefined) continue;
    const total = budget?.total;
    const left = total === undefined ? null : total - (used ?? 0n);
    budgets[currency] = {
      perTransaction: budget?.perTransaction === undefined ? null : toMajor(budget.perTransaction, currency),
      total: total === undefined ? null : toMajor(total, currency),
      spent: toMajor(used ?? 0n, currency),
      remaining: left === null ? null : toMajor(left > 0n ? left : 0n, currency),
    };
  }
  const now = clock.nowMs();
  return {
    id: row.id,
    name: row.name,
    scopes: scopesOf(row),
    budgets,
    allowlist: allowlistOf(row),
    parentKeyId: row.parentKeyId,
    status: row.revokedAt !== null ? "REVOKED" : row.expiresAt <= now ? "EXPIRED" : "ACTIVE",
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    revokedAt: isoOrNull(row.revokedAt),
    lastUsedAt: isoOrNull(row.lastUsedAt),
  };
}

export type KeyView = ReturnType<typeof keyView> extends Op<infer View> ? View : never;

/** GET /agents/me/keys/current: the key the request came with, null for the agent's own key. */
export function* callingKeyView(agentId: AgentId, key: KeyRow | null) {
  return { agentId, key: key && (yield* keyView(key)) };
}

/** A write op: revokeKey, answered as the key now is. */
export function* revokedKeyView(agentId: AgentId, id: string, by: KeyRow | null) {
  return yield* keyView(yield* revokeKey(agentId, id, by));
}

export function* listKeys(agentId: AgentId, window: PageWindow) {
  const page = yield* newestFirst({ table: agentKeys, scope: { where: "agent_id = ?", params: [agentId] } }, window, (row) => row);
  const data = [];
  for (const row of page.data) data.push(yield* keyView(row));
  return { ...page, data };
}
