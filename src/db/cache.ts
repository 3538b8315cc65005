import { type AgentId } from "../ids";
// Rows the hot paths read on every request (an account's id, an agent's row, a block between two
// agents), kept in memory so that a payment reads nothing it already knows. Transactional: what an
// op remembers, changes or forgets is staged with the op, promoted when its transaction commits and
// dropped when it rolls back, so the cache never holds what the database does not.
//
// Two scopes. "everywhere": a fact that never changes once it exists (an account's id): cached on every
// engine, by every instance. "instance": a row that changes: cached only where this process is the
// database's only writer (SQLite; the engine holds a lock that keeps any other process out), never on
// PostgreSQL, where other instances write — there a write op still remembers such a row for its own
// length (a payment reads the payer's row once, not at each step that needs it), and forgets it when
// the op ends: the next op reads it again.
export type CacheScope = "everywhere" | "instance";

/** A key made by cacheKeys: remember, revise and forget take no other. */
export type CacheKey = string & { readonly madeBy: "cacheKeys" };
const key = (text: string) => text as CacheKey;

/**
 * Every key the cache holds, one builder per kind, used wherever a key is remembered, revised or
 * forgotten: a key spelt twice could differ, and the write that should forget a row would miss it
 * (a rotated API key's hash would go on finding its agent).
 */
export const cacheKeys = {
  agent: (id: string) => key(`agent:${id}`),
  scoreEvents: (agentId: AgentId) => key(`score-events:${agentId}`),
  agentByKeyHash: (field: "apiKeyHash" | "ownerKeyHash", hash: string) => key(`key:${field}:${hash}`),
  /** A restricted key (pp_r_…) by its hash: forgotten when it is revoked. */
  restrictedKey: (hash: string) => key(`restricted-key:${hash}`),
  block: (blockerId: AgentId, blockedId: AgentId) => key(`block:${blockerId}:${blockedId}`),
  /** agentId null: a system account. */
  account: (agentId: AgentId | null, kind: string, currency: string) => key(`account:${agentId ?? "-"}:${kind}:${currency}`),
};

const FORGOTTEN = Symbol("forgotten");
const MAX_ENTRIES = 200_000;

export class Cache {
  readonly committed = new Map<string, unknown>();
  constructor(readonly instanceScoped: boolean) {}

  /** A view for one transaction (or, with a parent, one op inside a group's transaction). */
  view(parent?: CacheView): CacheView {
    return new CacheView(this, parent ?? null, true);
  }

  /** A view for reads: they see committed state, so what they load is committed at once. */
  readView(): CacheView {
    return new CacheView(this, null, false);
  }

  accepts(scope: CacheScope): boolean {
    return scope === "everywhere" || this.instanceScoped;
  }

  store(key: string, value: unknown): void {
    if (value === FORGOTTEN) {
      this.committed.delete(key);
      return;
    }
    // A bound on memory, not an eviction policy: the hot rows come back on their next read.
    if (this.committed.size >= MAX_ENTRIES) this.committed.clear();
    this.committed.set(key, value);
  }

  clear(): void {
    this.committed.clear();
  }
}

export class CacheView {
  private readonly staged = new Map<string, unknown>();
  /** "instance" rows on an engine that keeps none: remembered by this write op only, never committed. */
  private readonly opOnly = new Map<string, unknown>();
  constructor(
    private readonly cache: Cache,
    private readonly parent: CacheView | null,
    private readonly transactional: boolean,
  ) {}

  private lookup(key: string): unknown {
    if (this.staged.has(key)) return this.staged.get(key);
    return this.parent ? this.parent.lookup(key) : this.cache.committed.get(key);
  }

  get(key: string, scope: CacheScope): unknown {
    const value = this.cache.accepts(scope) ? this.lookup(key) : this.opOnly.get(key);
    return value === FORGOTTEN ? undefined : value;
  }

  put(key: string, value: unknown, scope: CacheScope): void {
    if (!this.cache.accepts(scope)) {
      if (this.transactional) this.opOnly.set(key, value);
      return;
    }
    if (this.transactional) this.staged.set(key, value);
    else this.cache.store(key, value);
  }

  forget(key: string): void {
    this.opOnly.delete(key);
    if (this.transactional) this.staged.set(key, FORGOTTEN);
    else this.cache.store(key, FORGOTTEN);
  }

  /** Applies `change` to the cached value, if there is one (the row was just updated in the database). */
  revise(key: string, change: (value: any) => unknown): void {
    const own = this.opOnly.get(key);
    if (own !== undefined) this.opOnly.set(key, change(own));
    const value = this.lookup(key);
    if (value !== undefined && value !== FORGOTTEN) this.put(key, change(value), "instance");
  }

  /** The transaction (or op) committed: its changes go to the parent, or to the cache. */
  commit(): void {
    for (const [key, value] of this.staged) {
      if (this.parent) this.parent.staged.set(key, value);
      else this.cache.store(key, value);
    }
    this.staged.clear();
    this.opOnly.clear();
  }
}
