// The operator's list of agents (GET /admin/agents): found by a piece of their name, their id or an
// owner's address (the registration's, or the owner account's that claimed it), each with its balances
// and its brakes. A substring is no index seek: the list reads the agents table through, which an
// operator's occasional search can afford, and answers a page at a time.
import { iso } from "../clock";
import { all, containing, newestFirst, type Op, type PageWindow } from "../db";
import { type AgentId } from "../ids";
import { toMajor, type Currency } from "../money";
import { agents } from "../agents/schema";
import { brakesOn } from "../agents/freeze";
import { isFrozen } from "../agents/service";

const placeholders = (values: unknown[]) => values.map(() => "?").join(", ");

/** What each agent of a page holds, in the currencies it holds anything in. */
function* balancesOf(ids: AgentId[]): Op<Map<string, { currency: Currency; available: number; held: number }[]>> {
  const rows = ids.length === 0 ? [] : yield* all<{ agentId: AgentId; kind: string; currency: Currency; balance: bigint }>(
    `SELECT agent_id AS agentId, kind, currency, balance FROM accounts WHERE agent_id IN (${placeholders(ids)}) AND balance <> 0 ORDER BY agent_id, currency`,
    ...ids,
  );
  const balances = new Map<string, { currency: Currency; available: number; held: number }[]>();
  for (const row of rows) {
    const held = balances.get(row.agentId) ?? [];
    let entry = held.find((balance) => balance.currency === row.currency);
    if (!entry) held.push((entry = { currency: row.currency, available: 0, held: 0 }));
    entry[row.kind === "held" ? "held" : "available"] = toMajor(row.balance, row.currency);
    balances.set(row.agentId, held);
  }
  return balances;
}

/** The address of the owner account that claimed each agent of a page (unclaimed ones have none). */
function* claimsOf(ids: AgentId[]): Op<Map<string, string>> {
  const rows = ids.length === 0 ? [] : yield* all<{ agentId: AgentId; email: string }>(
    `SELECT ao.agent_id AS agentId, o.email AS email FROM agent_owners ao JOIN owners o ON o.id = ao.owner_id WHERE ao.agent_id IN (${placeholders(ids)})`,
    ...ids,
  );
  return new Map(rows.map((row) => [row.agentId, row.email]));
}

/** Agents newest first; `q`: those whose id is it, or whose name or an owner's address contains it (any case). */
export function* searchAgents(q: string | undefined, window: PageWindow) {
  const pattern = q === undefined ? "" : containing(q);
  const narrow = q === undefined
    ? undefined
    : {
        where: `id = ? OR LOWER(name) LIKE ? ESCAPE '\\' OR LOWER(owner_email) LIKE ? ESCAPE '\\'
          OR id IN (SELECT ao.agent_id FROM agent_owners ao JOIN owners o ON o.id = ao.owner_id WHERE o.email LIKE ? ESCAPE '\\')`,
        params: [q, pattern, pattern, pattern],
      };
  const page = yield* newestFirst({ table: agents, scope: { where: "1 = 1", params: [] }, narrow }, window, (row) => row);
  const ids = page.data.map((row) => row.id);
  const [balances, claims] = [yield* balancesOf(ids), yield* claimsOf(ids)];
  return {
    ...page,
    data: page.data.map((agent) => ({
      id: agent.id,
      name: agent.name,
      ownerName: agent.ownerName,
      ownerEmail: agent.ownerEmail,
      claimedBy: claims.get(agent.id) ?? null,
      frozen: isFrozen(agent),
      frozenBy: brakesOn(agent),
      rateLimit: agent.rateLimit === null ? null : Number(agent.rateLimit),
      balances: balances.get(agent.id) ?? [],
      createdAt: iso(agent.createdAt),
    })),
  };
}
