// Restricted keys (pp_r_…): made by the agent key, the owner key or another restricted key (never wider
// than the key that makes it), listed with what each has spent, revoked at once with every key made
// from it. A key's budgets and allowlist are checked on each outflow (outflows/budget.ts).
import { clock, iso } from "../clock";
import { all, cacheKeys, FOR_UPDATE, forget, get, newestFirst, remember, run, type PageWindow, type Query } from "../db";
import { ApiError, invalid, notFound } from "../errors";
import { secret, sha256Hex, uuid } from "../ids";
import { dictionary } from "../json";
import { CURRENCIES, toMajor, toMinor, type Currency } from "../money";
import { DAY_MS } from "../time";
import type { Scope } from "./scopes";

export const DEFAULT_KEY_LIFETIME_MS = 30 * DAY_MS;
export const MAX_KEY_LIFETIME_MS = 365 * DAY_MS;
/** A key made by a key made by a key …: the chain its outflows are counted along stays short. */
export const MAX_KEY_DEPTH = 4;

/** Per currency, in minor units; a currency without an entry has no budget of that kind. */
export type Budget = { perTransaction?: bigint; total?: bigint };
export type Budgets = Partial<Record<Currency, Budget>>;

export type KeyRow = {
  id: string;
  agentId: string;
  name: string;
  keyHash: string;
  scopes: string;
  budgets: string;
  allowlist: string | null;
  parentKeyId: string | null;
  createdAt: bigint;
  expiresAt: bigint;
  revokedAt: bigint | null;
  lastUsedAt: bigint | null;
};

const COLUMNS = `id, agent_id AS agentId, name, key_hash AS keyHash, scopes, budgets, allowlist, parent_key_id AS parentKeyId,
  created_at AS createdAt, expires_at AS expiresAt, revoked_at AS revokedAt, last_used_at AS lastUsedAt`;

export const scopesOf = (row: KeyRow): Scope[] => JSON.parse(row.scopes);
/** What a route check needs of a restricted key (a row, or its view); null: the agent key, which opens every route. */
export type KeyScopes = { id: string; scopes: readonly Scope[] };
export const keyScopes = (row: KeyRow | null): KeyScopes | null => row && { id: row.id, scopes: scopesOf(row) };
export const allowlistOf = (row: KeyRow): string[] | null => (row.allowlist === null ? null : JSON.parse(row.allowlist));

export function budgetsOf(row: KeyRow): Budgets {
  const stored = JSON.parse(row.budgets) as Record<string, { perTransaction?: string; total?: string }>;
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
export const inForce = (row: KeyRow, now = clock.nowMs()) => row.revokedAt === null && Number(row.expiresAt) > now;

export function* findKey(id: string, lock = false): Query<KeyRow | null> {
  return yield* get<KeyRow>(`SELECT ${COLUMNS} FROM agent_keys WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
}

/** The key and the keys it was made from, nearest first. */
export function* keyChain(id: string): Query<KeyRow[]> {
  const chain: KeyRow[] = [];
  for (let next: string | null = id; next !== null && chain.length <= MAX_KEY_DEPTH; ) {
    const row: KeyRow | null = yield* findKey(next);
    if (!row) break;
    chain.push(row);
    next = row.parentKeyId;
  }
  return chain;
}

/** The key in force this hash is of, or null (unknown, revoked, expired, or made from one that is). */
export function* restrictedKeyByHash(hash: string): Query<KeyRow | null> {
  const row = yield* remember(cacheKeys.restrictedKey(hash), "instance", () => get<KeyRow>(`SELECT ${COLUMNS} FROM agent_keys WHERE key_hash = ?`, hash));
  if (!row || !inForce(row)) return null;
  if (row.parentKeyId === null) return row;
  const chain = yield* keyChain(row.parentKeyId);
  return chain.every((ancestor) => inForce(ancestor)) ? row : null;
}

/** A key's last use is kept to the minute: a request writes it only if the one written is older. */
export const LAST_USE_PRECISION_MS = 60_000;
export const lastUseIsStale = (row: KeyRow, now = clock.nowMs()) => row.lastUsedAt === null || now - Number(row.lastUsedAt) >= LAST_USE_PRECISION_MS;

/** Records that a request came with the key now (at most once a minute per key; concurrent requests: one write). */
export function* touchKey(row: KeyRow): Query<void> {
  const now = clock.nowMs();
  yield* run("UPDATE agent_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)", now, row.id, now - LAST_USE_PRECISION_MS);
  // The cached row (SQLite) is read again on the next request, with this time in it.
  yield* forget(cacheKeys.restrictedKey(row.keyHash));
}

/** Id → name of those of `ids` that are keys. */
export function* keyNamesOf(ids: (string | null)[]): Query<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = yield* all<{ id: string; name: string }>(`SELECT id, name FROM agent_keys WHERE id IN (${wanted.map(() => "?").join(", ")})`, ...wanted);
  return new Map(rows.map((row) => [row.id, row.name]));
}

export function* spentByKey(keyId: string): Query<Map<Currency, bigint>> {
  const rows = yield* all<{ currency: Currency; spent: bigint }>("SELECT currency, spent FROM key_spending WHERE key_id = ?", keyId);
  return new Map(rows.map((row) => [row.currency, row.spent]));
}

/** The body of POST /agents/me/keys, as validated by KeyBody (scopes from SCOPES, budgets by currency). */
export type NewKey = {
  name: string;
  scopes: string[];
  budgets?: Partial<Record<string, { perTransaction?: number; total?: number }>>;
  allowlist?: string[] | null;
  expiresInSeconds?: number;
};

function budgetsFrom(body: NewKey): Budgets {
  const budgets: Budgets = dictionary();
  for (const currency of CURRENCIES) {
    const given = body.budgets?.[currency];
    if (!given) continue;
    const budget: Budget = {};
    if (given.perTransaction !== undefined) budget.perTransaction = toMinor(given.perTransaction, currency, `budgets.${currency}.perTransaction`);
    if (given.total !== undefined) budget.total = toMinor(given.total, currency, `budgets.${currency}.total`);
    if (budget.perTransaction !== undefined || budget.total !== undefined) budgets[currency] = budget;
  }
  return budgets;
}

const wider = (message: string, details: Record<string, unknown>) => new ApiError("KEY_SCOPE_DENIED", `a restricted key makes only keys narrower than itself: ${message}`, { details });

/** Refuses a new key wider than the restricted key that makes it, in any of its parts. */
function* assertNarrower(parent: KeyRow, scopes: Scope[], budgets: Budgets, allowlist: string[] | null, expiresAt: number): Query<void> {
  const own = scopesOf(parent);
  const extra = scopes.filter((scope) => !own.includes(scope));
  if (extra.length) throw wider(`it lacks the scopes ${extra.join(", ")}`, { scopes: own });
  if (expiresAt > Number(parent.expiresAt)) throw wider(`it expires at ${iso(Number(parent.expiresAt))}`, { expiresAt: iso(Number(parent.expiresAt)) });
  const ownList = allowlistOf(parent);
  if (ownList !== null && (allowlist === null || allowlist.some((id) => !ownList.includes(id)))) {
    throw wider("its counterparty allowlist must hold every counterparty of the new key's", { allowlist: ownList });
  }
  const spent = yield* spentByKey(parent.id);
  for (const [currency, budget] of Object.entries(budgetsOf(parent)) as [Currency, Budget][]) {
    const asked = budgets[currency];
    if (budget.perTransaction !== undefined && (asked?.perTransaction === undefined || asked.perTransaction > budget.perTransaction)) {
      throw wider(`its budget per transaction is ${toMajor(budget.perTransaction, currency)} ${currency}`, { currency, perTransaction: toMajor(budget.perTransaction, currency) });
    }
    if (budget.total === undefined) continue;
    const left = budget.total - (spent.get(currency) ?? 0n);
    if (asked?.total === undefined || asked.total > left) {
      throw wider(`its total budget has ${toMajor(left > 0n ? left : 0n, currency)} ${currency} left`, { currency, remaining: toMajor(left > 0n ? left : 0n, currency) });
    }
  }
}

/** Makes a key for `agentId`; `parent`: the restricted key that asks (null: the agent or owner key). Returns the row and the key, shown once. */
export function* createKey(agentId: string, parent: KeyRow | null, body: NewKey): Query<{ row: KeyRow; apiKey: string }> {
  const scopes = [...new Set(body.scopes)] as Scope[];
  const budgets = budgetsFrom(body);
  const allowlist = body.allowlist ? [...new Set(body.allowlist)] : null;
  const now = clock.nowMs();
  const lifetime = body.expiresInSeconds === undefined ? DEFAULT_KEY_LIFETIME_MS : body.expiresInSeconds * 1000;
  if (lifetime > MAX_KEY_LIFETIME_MS) throw invalid(`expiresInSeconds: at most ${MAX_KEY_LIFETIME_MS / 1000} (one year)`);
  // Left out, the expiry is the default one, but never past the expiry of the key that makes it.
  const expiresAt = parent && body.expiresInSeconds === undefined ? Math.min(now + lifetime, Number(parent.expiresAt)) : now + lifetime;
  if (parent) {
    if ((yield* keyChain(parent.id)).length > MAX_KEY_DEPTH - 1) throw wider(`keys are made at most ${MAX_KEY_DEPTH} deep`, { depth: MAX_KEY_DEPTH });
    yield* assertNarrower(parent, scopes, budgets, allowlist, expiresAt);
  }
  const apiKey = secret("pp_r_");
  const stored = dictionary<{ perTransaction?: string; total?: string }>();
  for (const [currency, budget] of Object.entries(budgets) as [Currency, Budget][]) {
    stored[currency] = { ...(budget.perTransaction !== undefined ? { perTransaction: String(budget.perTransaction) } : {}), ...(budget.total !== undefined ? { total: String(budget.total) } : {}) };
  }
  const row = (yield* get<KeyRow>(
    `INSERT INTO agent_keys (id, agent_id, name, key_hash, scopes, budgets, allowlist, parent_key_id, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    uuid(),
    agentId,
    body.name,
    sha256Hex(apiKey),
    JSON.stringify(scopes),
    JSON.stringify(stored),
    allowlist === null ? null : JSON.stringify(allowlist),
    parent?.id ?? null,
    now,
    expiresAt,
  ))!;
  return { row, apiKey };
}

/**
 * Revokes a key of `agentId` and every key made from it, at once. A restricted key may revoke only
 * itself and the keys made from it (`by`); the agent and owner keys any of the agent's keys.
 */
export function* revokeKey(agentId: string, id: string, by: KeyRow | null): Query<KeyRow> {
  const row = yield* findKey(id, true);
  if (!row || row.agentId !== agentId) throw notFound("key");
  if (by && row.id !== by.id && !(yield* keyChain(row.id)).some((ancestor) => ancestor.id === by.id)) throw notFound("key");
  const now = clock.nowMs();
  for (let level = [row]; level.length; ) {
    const next: KeyRow[] = [];
    for (const key of level) {
      if (key.revokedAt === null) yield* run("UPDATE agent_keys SET revoked_at = ? WHERE id = ?", now, key.id);
      yield* forget(cacheKeys.restrictedKey(key.keyHash));
      next.push(...(yield* all<KeyRow>(`SELECT ${COLUMNS} FROM agent_keys WHERE parent_key_id = ?`, key.id)));
    }
    level = next;
  }
  return (yield* findKey(id))!;
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
    status: row.revokedAt !== null ? "REVOKED" : Number(row.expiresAt) <= now ? "EXPIRED" : "ACTIVE",
    createdAt: iso(Number(row.createdAt)),
    expiresAt: iso(Number(row.expiresAt)),
    revokedAt: row.revokedAt === null ? null : iso(Number(row.revokedAt)),
    lastUsedAt: row.lastUsedAt === null ? null : iso(Number(row.lastUsedAt)),
  };
}

export type KeyView = ReturnType<typeof keyView> extends Query<infer View> ? View : never;

export function* listKeys(agentId: string, window: PageWindow) {
  const page = yield* newestFirst<KeyRow, KeyRow>({ table: "agent_keys", columns: COLUMNS, scope: { where: "agent_id = ?", params: [agentId] } }, window, (row) => row);
  const data = [];
  for (const row of page.data) data.push(yield* keyView(row));
  return { ...page, data };
}
