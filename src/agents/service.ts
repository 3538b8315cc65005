import { clock, iso } from "../clock";
import { sqlite } from "../db";
import { notFound } from "../errors";
import { secret, sha256Hex, uuid } from "../ids";
import { assignDepositAddress } from "../chain/addresses";
import { balancesOf, openAgentAccounts } from "../ledger/ledger";
import { toMajor } from "../money";
import { tierOf } from "../reputation/tiers";

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
  createdAt: bigint;
};

const AGENT_COLUMNS = `id, name, owner_name AS ownerName, owner_email AS ownerEmail, description, capabilities,
  webhook_url AS webhookUrl, score, rate_limit AS rateLimit, created_at AS createdAt`;

export function findAgent(id: string): AgentRow | null {
  return sqlite.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ?`).get(id) as AgentRow | null;
}

export function getAgent(id: string): AgentRow {
  const agent = findAgent(id);
  if (!agent) throw notFound("agent");
  return agent;
}

export function findAgentByKeyHash(column: "api_key_hash" | "owner_key_hash", hash: string): AgentRow | null {
  return sqlite.query(`SELECT ${AGENT_COLUMNS} FROM agents WHERE ${column} = ?`).get(hash) as AgentRow | null;
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

export function balancesView(agentId: string) {
  return balancesOf(agentId).map((row) => ({
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

/** Inside write(): creates the agent, its accounts and keys. Keys are returned once, stored hashed. */
export function registerAgent(input: Registration, webhookSecret: string | null) {
  const id = uuid();
  const apiKey = secret("pp_");
  const ownerKey = secret("po_");
  sqlite
    .query(
      `INSERT INTO agents (id, name, owner_name, owner_email, description, capabilities, webhook_url, webhook_secret,
         api_key_hash, owner_key_hash, score, rate_limit, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?)`,
    )
    .run(
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
  openAgentAccounts(id);
  const address = assignDepositAddress(id);
  return { id, apiKey, ownerKey, address };
}

/** Inside write(): replaces the agent's API key; the old one stops working at once. */
export function rotateApiKey(agentId: string): string {
  const apiKey = secret("pp_");
  sqlite.query("UPDATE agents SET api_key_hash = ? WHERE id = ?").run(sha256Hex(apiKey), agentId);
  return apiKey;
}

export function reputationView(agentId: string) {
  const agent = getAgent(agentId);
  const score = Number(agent.score);
  const { tier, maxPerTransaction } = tierOf(score);
  const events = sqlite
    .query(
      `SELECT reason, change, reference_type AS referenceType, reference_id AS referenceId, created_at AS createdAt
       FROM score_events WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 20`,
    )
    .all(agentId) as { reason: string; change: bigint; referenceType: string | null; referenceId: string | null; createdAt: bigint }[];
  return {
    agentId,
    score,
    tier,
    maxPerTransaction,
    events: events.map((event) => ({
      reason: event.reason,
      change: Number(event.change),
      reference: event.referenceType ? { type: event.referenceType, id: event.referenceId } : null,
      createdAt: iso(Number(event.createdAt)),
    })),
  };
}
