import { clock, iso } from "../clock";
import { all, cacheKeys, FOR_UPDATE, forget, get, remember, revise, run, type Query } from "../db";
import { ApiError, notFound } from "../errors";
import { secret, sha256Hex, uuid } from "../ids";
import { balancesOf, openAgentAccounts } from "../ledger/ledger";
import { toMajor } from "../money";
import { tierOf } from "./tiers";

export type AgentRow = {
  id: string;
  name: string;
  ownerName: string;
  ownerEmail: string;
  description: string | null;
  capabilities: string;
  webhookUrl: string | null;
  score: bigint;
  rateLimit: bigint | null;
  /** The owner's spending policy as stored (outflows/policy.ts); null: none. */
  policy: string | null;
  createdAt: bigint;
};

const AGENT_COLUMNS = `id, name, owner_name AS ownerName, owner_email AS ownerEmail, description, capabilities,
  webhook_url AS webhookUrl, score, rate_limit AS rateLimit, policy, created_at AS createdAt`;

/** Remembered where this process is the only writer: every change to the row goes through this module. */
export function findAgent(id: string): Query<AgentRow | null> {
  return remember(cacheKeys.agent(id), "instance", () => get<AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ?`, id));
}

type AgentChanges = {
  rate_limit?: number | null;
  policy?: string | null;
  webhook_url?: string | null;
  webhook_secret?: string | null;
  api_key_hash?: string;
  owner_key_hash?: string;
};

/** A write op: changes columns of an agent's row (and the cache forgets it). */
export function* updateAgent(id: string, changes: AgentChanges): Query<void> {
  const columns = Object.keys(changes) as (keyof AgentChanges)[];
  yield* run(`UPDATE agents SET ${columns.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`, ...columns.map((column) => changes[column]), id);
  yield* forget(cacheKeys.agent(id));
}

export type ScoreEvent = { reason: string; change: number; referenceType: string | null; referenceId: string | null; createdAt: number };
/** The reputation route shows the latest 20 changes; the agent's row keeps exactly those (no table, no index to write). */
const SCORE_EVENTS_KEPT = 20;

/**
 * The agent's latest score changes, oldest first, each as its JSON text (the row stores their JSON
 * array): adding one joins 20 short strings instead of serializing 20 objects. `lock`: in the write op
 * that adds one.
 */
function* scoreEventsOf(id: string, lock = false): Query<string[]> {
  const events = yield* remember(cacheKeys.scoreEvents(id), "instance", function* () {
    const row = yield* get<{ events: string }>(`SELECT score_events AS events FROM agents WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
    return row && (JSON.parse(row.events) as ScoreEvent[]).map((event) => JSON.stringify(event));
  });
  return events ?? [];
}

/** A write op: the score moves by the event's change, and the event joins the latest ones. */
export function* addToScore(id: string, event: ScoreEvent): Query<void> {
  const events = [...(yield* scoreEventsOf(id, true)), JSON.stringify(event)].slice(-SCORE_EVENTS_KEPT);
  yield* run("UPDATE agents SET score = score + ?, score_events = ? WHERE id = ?", event.change, `[${events.join(",")}]`, id);
  yield* revise<string[]>(cacheKeys.scoreEvents(id), () => events);
  yield* revise<AgentRow>(cacheKeys.agent(id), (row) => ({ ...row, score: row.score + BigInt(event.change) }));
}

/** The names of the given agents (for people reading ids: the console, the owner's approvals). */
export function* namesOf(ids: (string | null)[]): Query<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))].slice(0, 1000);
  if (wanted.length === 0) return new Map();
  const rows = yield* all<{ id: string; name: string }>(`SELECT id, name FROM agents WHERE id IN (${wanted.map(() => "?").join(", ")})`, ...wanted);
  return new Map(rows.map((row) => [row.id, row.name]));
}

export function* getAgent(id: string): Query<AgentRow> {
  const agent = yield* findAgent(id);
  if (!agent) throw notFound("agent");
  return agent;
}

/**
 * In a write op that enforces a limit between agents (open negotiations per pair, messages per hour,
 * the counter-offer cooldown): locks their rows, in id order, so two such ops for the same agents run
 * one after the other on PostgreSQL (nothing to do on SQLite's single writer).
 */
export function* lockAgents(ids: string[]): Query<void> {
  const sorted = [...new Set(ids)].sort();
  yield* all(`SELECT id FROM agents WHERE id IN (${sorted.map(() => "?").join(", ")}) ORDER BY id ${FOR_UPDATE}`, ...sorted);
}

type KeyColumn = "api_key_hash" | "owner_key_hash";

export function* findAgentByKeyHash(column: KeyColumn, hash: string): Query<AgentRow | null> {
  const found = yield* remember(cacheKeys.agentByKeyHash(column, hash), "instance", () => get<{ id: string }>(`SELECT id FROM agents WHERE ${column} = ?`, hash));
  return found && (yield* findAgent(found.id));
}

/**
 * A write op: the agent's key in `column` becomes `newHash`; the old one stops working at once.
 * `presentedHash`, when given, must still be the key in force under the row lock (401 otherwise).
 */
export function* replaceKeyHash(agentId: string, column: KeyColumn, newHash: string, presentedHash?: string): Query<void> {
  const old = (yield* get<{ hash: string }>(`SELECT ${column} AS hash FROM agents WHERE id = ? ${FOR_UPDATE}`, agentId))!;
  if (presentedHash !== undefined && old.hash !== presentedHash) throw new ApiError("UNAUTHORIZED", "invalid key: it was rotated (by another request meanwhile) or never issued");
  yield* updateAgent(agentId, { [column]: newHash });
  yield* forget(cacheKeys.agentByKeyHash(column, old.hash));
}

export function agentView(agent: AgentRow) {
  const score = Number(agent.score);
  return {
    id: agent.id,
    name: agent.name,
    ownerName: agent.ownerName,
    ownerEmail: agent.ownerEmail,
    description: agent.description,
    capabilities: JSON.parse(agent.capabilities) as string[],
    webhookUrl: agent.webhookUrl,
    score,
    tier: tierOf(score).tier,
    createdAt: iso(Number(agent.createdAt)),
  };
}

export function* balancesView(agentId: string) {
  return (yield* balancesOf(agentId)).map((row) => ({
    currency: row.currency,
    available: toMajor(row.available, row.currency),
    held: toMajor(row.held, row.currency),
  }));
}

export type Registration = {
  name: string;
  ownerName: string;
  ownerEmail: string;
  description?: string;
  capabilities?: string[];
  webhookUrl?: string | null;
};

/**
 * A write op: creates the agent, its accounts and keys (returned once, stored hashed). Its deposit
 * address is assigned by the caller's op (chain/addresses), which sits above this module.
 */
export function* registerAgent(input: Registration, webhookSecret: string | null): Query<{ id: string; apiKey: string; ownerKey: string }> {
  const id = uuid();
  const apiKey = secret("pp_");
  const ownerKey = secret("po_");
  yield* run(
      `INSERT INTO agents (id, name, owner_name, owner_email, description, capabilities, webhook_url, webhook_secret,
         api_key_hash, owner_key_hash, score, rate_limit, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?)`,
      id,
      input.name,
      input.ownerName,
      input.ownerEmail,
      input.description ?? null,
      JSON.stringify(input.capabilities ?? []),
      input.webhookUrl ?? null,
      input.webhookUrl ? webhookSecret : null,
      sha256Hex(apiKey),
      sha256Hex(ownerKey),
      clock.nowMs(),
  );
  yield* openAgentAccounts(id);
  return { id, apiKey, ownerKey };
}

/**
 * A write op: replaces the agent's API key; the old one stops working at once. `presentedHash`: the
 * hash of the key the agent's request authenticated with, checked again under the row lock, so that of
 * concurrent rotations with one key the first replaces it and the others find it dead (401), as any
 * later request with it would. Without it (the owner, in the console) whichever key is current goes.
 */
export function* rotateApiKey(agentId: string, presentedHash?: string): Query<string> {
  const apiKey = secret("pp_");
  yield* replaceKeyHash(agentId, "api_key_hash", sha256Hex(apiKey), presentedHash);
  return apiKey;
}

export function* reputationView(agentId: string) {
  const agent = yield* getAgent(agentId);
  const score = Number(agent.score);
  const { tier, maxPerTransaction } = tierOf(score);
  const events = (yield* scoreEventsOf(agentId)).map((text) => JSON.parse(text) as ScoreEvent).reverse();
  return {
    agentId,
    score,
    tier,
    maxPerTransaction,
    events: events.map((event) => ({
      reason: event.reason,
      change: Number(event.change),
      reference: event.referenceType ? { type: event.referenceType, id: event.referenceId } : null,
      createdAt: iso(event.createdAt),
    })),
  };
}
