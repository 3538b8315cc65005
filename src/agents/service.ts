import { clock, iso } from "../clock";
import { all, cacheKeys, find, FOR_UPDATE, forget, insert, remember, revise, runLater, select, update, type Changes, type Op, type Row } from "../db";
import { ApiError, notFound } from "../errors";
import { type AgentId, secret, sha256Hex, uuid } from "../ids";
import { jsonText, readJson, type JsonText } from "../json";
import { agents, type ScoreEvent, type StoredPolicy } from "./schema";

export type { ScoreEvent } from "./schema";
import { tierOf } from "./tiers";

export type AgentRow = Row<typeof agents>;

/**
 * Remembered where this process is the only writer: every change to the row goes through this module
 * (updateAgent, addToScore), which forgets or revises the cached copy in the same op.
 */
export function findAgent(id: AgentId): Op<AgentRow | null> {
  return remember(cacheKeys.agent(id), "instance", () => find(agents, id));
}

/** What may change of an agent's row through updateAgent (the score moves only by addToScore). */
type AgentChanges = Pick<Changes<typeof agents>, "rateLimit" | "policy" | "webhookUrl" | "webhookSecret" | "apiKeyHash" | "ownerKeyHash" | "ownerFrozenAt" | "operatorFrozenAt">;

/** A write op: changes columns of an agent's row (and the cache forgets it). */
export function* updateAgent(id: string, changes: AgentChanges): Op<void> {
  yield* update(agents, id, changes);
  yield* forget(cacheKeys.agent(id));
}

/** The reputation route shows the latest 20 changes; the agent's row keeps exactly those (no table, no index to write). */
const SCORE_EVENTS_KEPT = 20;

/**
 * The agent's latest score changes, oldest first, each as its JSON text (the row stores their JSON
 * array): adding one joins 20 short strings instead of serializing 20 objects. `lock`: in the write op
 * that adds one.
 */
function* scoreEventsOf(id: AgentId, lock = false): Op<JsonText<ScoreEvent>[]> {
  const events = yield* remember(cacheKeys.scoreEvents(id), "instance", function* () {
    const row = yield* find(agents, id, lock);
    return row && readJson(row.scoreEvents).map((event) => jsonText(event));
  });
  return events ?? [];
}

/** A write op: the score moves by the event's change, and the event joins the latest ones. */
export function* addToScore(id: AgentId, event: ScoreEvent): Op<void> {
  const events = [...(yield* scoreEventsOf(id, true)), jsonText(event)].slice(-SCORE_EVENTS_KEPT);
  // The array of the events' texts, joined as text: what jsonText(events parsed) would write.
  const scoreEvents = `[${events.join(",")}]` as JsonText<ScoreEvent[]>;
  yield* runLater("UPDATE agents SET score = score + ?, score_events = ? WHERE id = ?", event.change, scoreEvents, id);
  yield* revise<JsonText<ScoreEvent>[]>(cacheKeys.scoreEvents(id), () => events);
  yield* revise<AgentRow>(cacheKeys.agent(id), (row) => ({ ...row, score: row.score + BigInt(event.change), scoreEvents }));
}

/** The names of the given agents (for people reading ids: the console, the owner's approvals). */
export function* namesOf(ids: (string | null)[]): Op<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))].slice(0, 1000);
  if (wanted.length === 0) return new Map();
  // Only the names: a whole row carries the agent's score events too.
  const rows = yield* all<Pick<AgentRow, "id" | "name">>(`SELECT id, name FROM agents WHERE id IN (${wanted.map(() => "?").join(", ")})`, ...wanted);
  return new Map(rows.map((row) => [row.id, row.name]));
}

export function* getAgent(id: AgentId): Op<AgentRow> {
  const agent = yield* findAgent(id);
  if (!agent) throw notFound("agent");
  return agent;
}

/** A write op: the operator sets one agent's requests per window (`windowSeconds`: the window, as the answer says it); 404 for an unknown agent. */
export function* setRateLimit(id: AgentId, limit: number, windowSeconds: number) {
  yield* getAgent(id);
  yield* updateAgent(id, { rateLimit: limit });
  return { agentId: id, rateLimit: limit, windowSeconds };
}

/**
 * In a write op that enforces a limit between agents (open negotiations per pair, messages per hour,
 * the counter-offer cooldown): locks their rows, in id order, so two such ops for the same agents run
 * one after the other on PostgreSQL (nothing to do on SQLite's single writer).
 */
export function* lockAgents(ids: string[]): Op<void> {
  const sorted = [...new Set(ids)].sort();
  yield* all(`SELECT id FROM agents WHERE id IN (${sorted.map(() => "?").join(", ")}) ORDER BY id ${FOR_UPDATE}`, ...sorted);
}

/** The field of the agent's row holding a key's SHA-256: the agent key (pp_…) or the owner key (po_…). */
export type KeyField = "apiKeyHash" | "ownerKeyHash";

/**
 * The agent whose key has this hash. Only the hash → id link is remembered (the row is remembered under
 * its id, where every change of it forgets it); a lookup that reads the database reads the whole row in
 * that one statement, so where nothing is remembered (PostgreSQL) a request's key costs one round trip.
 */
export function* findAgentByKeyHash(field: KeyField, hash: string): Op<AgentRow | null> {
  let read: AgentRow | null = null;
  const found = yield* remember(cacheKeys.agentByKeyHash(field, hash), "instance", function* () {
    [read = null] = yield* select(agents, `${agents.columns[field].name} = ?`, hash);
    return read && { id: read.id };
  });
  return read ?? (found && (yield* findAgent(found.id)));
}

/**
 * A write op: the agent's key in `field` becomes `newHash`; the old one stops working at once.
 * `presentedHash`, when given, must still be the key in force under the row lock (401 otherwise).
 * Returns the old key's hash (what the restricted keys it made remember).
 */
export function* replaceKeyHash(agentId: AgentId, field: KeyField, newHash: string, presentedHash?: string): Op<string> {
  const old = (yield* find(agents, agentId, true))![field];
  if (presentedHash !== undefined && old !== presentedHash) throw new ApiError("UNAUTHORIZED", "invalid key: it was rotated (by another request meanwhile) or never issued");
  yield* updateAgent(agentId, { [field]: newHash });
  yield* forget(cacheKeys.agentByKeyHash(field, old));
  return old;
}

/** Whether a brake is on (agents/freeze.ts): the owner's or the operator's. */
export const isFrozen = (agent: AgentRow) => agent.ownerFrozenAt !== null || agent.operatorFrozenAt !== null;

export function agentView(agent: AgentRow) {
  const score = Number(agent.score);
  return {
    id: agent.id,
    name: agent.name,
    ownerName: agent.ownerName,
    ownerEmail: agent.ownerEmail,
    description: agent.description,
    capabilities: readJson(agent.capabilities),
    webhookUrl: agent.webhookUrl,
    score,
    tier: tierOf(score).tier,
    frozen: isFrozen(agent),
    createdAt: iso(agent.createdAt),
  };
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
 * A write op: creates the agent's row with its keys (returned once, stored hashed; the caller decides
 * whether the owner key is shown at all) and its starting `policy` (stored form). Its ledger accounts
 * and deposit address are opened by the caller's op (profile/registration.ts), which sits above the
 * ledger and the chain.
 */
export function* registerAgent(input: Registration, webhookSecret: string | null, policy: JsonText<StoredPolicy> | null): Op<{ id: AgentId; apiKey: string; ownerKey: string }> {
  // Where an agent's id is born: from here on it is an AgentId.
  const id = uuid() as AgentId;
  const apiKey = secret("pp_");
  const ownerKey = secret("po_");
  yield* insert(agents, {
    id,
    name: input.name,
    ownerName: input.ownerName,
    ownerEmail: input.ownerEmail,
    description: input.description ?? null,
    capabilities: jsonText(input.capabilities ?? []),
    webhookUrl: input.webhookUrl ?? null,
    webhookSecret: input.webhookUrl ? webhookSecret : null,
    apiKeyHash: sha256Hex(apiKey),
    ownerKeyHash: sha256Hex(ownerKey),
    policy,
    createdAt: clock.nowMs(),
  });
  return { id, apiKey, ownerKey };
}

/**
 * A write op: replaces the agent's API key; the old one stops working at once. `presentedHash`: the
 * hash of the key the agent's request authenticated with, checked again under the row lock, so that of
 * concurrent rotations with one key the first replaces it and the others find it dead (401), as any
 * later request with it would. Without it (the owner, in the console) whichever key is current goes.
 * Returns the new key (shown once) and the hash of the one it replaced.
 */
export function* rotateApiKey(agentId: AgentId, presentedHash?: string): Op<{ apiKey: string; replaced: string }> {
  const apiKey = secret("pp_");
  const replaced = yield* replaceKeyHash(agentId, "apiKeyHash", sha256Hex(apiKey), presentedHash);
  return { apiKey, replaced };
}

export function* reputationView(agentId: AgentId) {
  const agent = yield* getAgent(agentId);
  const score = Number(agent.score);
  const { tier, maxPerTransaction } = tierOf(score);
  const events = (yield* scoreEventsOf(agentId)).map(readJson).reverse();
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
