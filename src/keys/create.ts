// Making a restricted key (pp_r_…): by the agent key, the owner key or another restricted key, and then
// never wider than the key that makes it — in its scopes, expiry, allowlist, budgets and depth. A key
// remembers what made it (the restricted key, or the hash of the agent or owner key: rotating that key
// revokes it), and an agent has at most MAX_ACTIVE_KEYS in force.
import { lockAgents } from "../agents/service";
import { clock, iso } from "../clock";
import { insert, type Op } from "../db";
import { ApiError, invalid } from "../errors";
import { type AgentId, secret, sha256Hex, uuid } from "../ids";
import { dictionary, jsonText } from "../json";
import { CURRENCIES, toMajor, toMinor, type Currency } from "../money";
import { DAY_MS } from "../time";
import { agentKeys, type KeyPurpose, type StoredBudgets } from "./schema";
import type { Scope } from "./scopes";
import { activeKeyCount, allowlistOf, budgetsOf, keyChain, MAX_KEY_DEPTH, scopesOf, spentByKey, type Budget, type Budgets, type KeyRow } from "./service";

export const DEFAULT_KEY_LIFETIME_MS = 30 * DAY_MS;
export const MAX_KEY_LIFETIME_MS = 365 * DAY_MS;
/**
 * Keys in force per agent (OAuth access tokens aside: each lasts an hour and counts against its grant):
 * enough for a key per sub-agent, few enough that every one of them is seen on one console page.
 */
export const MAX_ACTIVE_KEYS = 100;

/**
 * What makes a key: a restricted key (`parent`), or the agent or owner key whose SHA-256 is `madeWith`
 * (null: not known, so that either key's rotation ends it).
 */
export type Maker = { parent: KeyRow; madeWith?: never } | { parent?: never; madeWith: string | null };

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
function* assertNarrower(parent: KeyRow, scopes: Scope[], budgets: Budgets, allowlist: string[] | null, expiresAt: number): Op<void> {
  const own = scopesOf(parent);
  const extra = scopes.filter((scope) => !own.includes(scope));
  if (extra.length) throw wider(`it lacks the scopes ${extra.join(", ")}`, { scopes: own });
  if (expiresAt > parent.expiresAt) throw wider(`it expires at ${iso(parent.expiresAt)}`, { expiresAt: iso(parent.expiresAt) });
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

/**
 * Makes a key for `agentId`, by `maker`, for `purpose`. `resource`: the one resource it works at (an
 * OAuth grant's key); a key made from a key bound to a resource is bound to the same. Returns the row
 * and the key, shown once.
 */
export function* createKey(agentId: AgentId, maker: Maker, body: NewKey, { purpose = "key", resource = null }: { purpose?: KeyPurpose; resource?: string | null } = {}): Op<{ row: KeyRow; apiKey: string }> {
  const parent = maker.parent ?? null;
  if (purpose !== "oauth_token") {
    // The agent's row is locked first, so keys made at once (on any instance) are counted one after the other.
    yield* lockAgents([agentId]);
    if ((yield* activeKeyCount(agentId)) >= MAX_ACTIVE_KEYS) {
      throw invalid(`this agent has ${MAX_ACTIVE_KEYS} restricted keys in force, the most it may have: revoke one first (GET /agents/me/keys lists them)`);
    }
  }
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
  const stored: StoredBudgets = dictionary();
  for (const [currency, budget] of Object.entries(budgets) as [Currency, Budget][]) {
    stored[currency] = { ...(budget.perTransaction !== undefined ? { perTransaction: String(budget.perTransaction) } : {}), ...(budget.total !== undefined ? { total: String(budget.total) } : {}) };
  }
  const row = yield* insert(agentKeys, {
    id: uuid(),
    agentId,
    name: body.name,
    keyHash: sha256Hex(apiKey),
    scopes: jsonText(scopes),
    budgets: jsonText(stored),
    allowlist: allowlist === null ? null : jsonText(allowlist),
    parentKeyId: parent?.id ?? null,
    madeWith: maker.madeWith ?? null,
    purpose,
    createdAt: now,
    expiresAt,
    resource: parent?.resource ?? resource,
  });
  return { row, apiKey };
}
