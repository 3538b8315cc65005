// The agents an agent has dealt with (a console-only read): whoever moved money with it or exchanged
// a message with it. The policy page offers them by name for the allowlist.
import { namesOf } from "../agents/service";
import { all, type Op } from "../db";
import { type AgentId } from "../ids";

export const MOST_KNOWN = 100;

/** Id → name of the agents `agentId` has transacted or messaged with, at most MOST_KNOWN, by name. */
export function* knownCounterparties(agentId: AgentId): Op<Map<string, string>> {
  const rows = yield* all<{ id: string }>(
    `SELECT id FROM (
       SELECT counterparty_id AS id FROM postings WHERE history_agent_id = ? AND counterparty_id IS NOT NULL
       UNION SELECT recipient_id AS id FROM messages WHERE sender_id = ?
       UNION SELECT sender_id AS id FROM messages WHERE recipient_id = ? AND sender_id IS NOT NULL
     ) known WHERE id <> ? LIMIT ?`,
    agentId,
    agentId,
    agentId,
    agentId,
    MOST_KNOWN,
  );
  const names = yield* namesOf(rows.map((row) => row.id));
  return new Map([...names].sort(([, a], [, b]) => a.localeCompare(b)));
}
