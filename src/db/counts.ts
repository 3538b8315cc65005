// Kept totals of the lists that grow without bound (an agent's webhook deliveries, its x402 payments):
// one row per (agent, list), moved in the same write op as the row it counts, so the total a page
// shows is one row read instead of a COUNT(*) that grows with the list. Rows of these lists are never
// deleted, so a count only goes up.
import { get, runLater, type Op } from "./query";
import type { KeptList } from "./schema";
import { type AgentId } from "../ids";

export type { KeptList } from "./schema";

/** A write op: the agent's list holds one item more. */
export function* countAdded(list: KeptList, agentId: AgentId): Op<void> {
  yield* runLater(
    "INSERT INTO list_counts (agent_id, list, items) VALUES (?, ?, 1) ON CONFLICT (agent_id, list) DO UPDATE SET items = list_counts.items + 1",
    agentId,
    list,
  );
}

/** How many items the agent's list holds. */
export function* keptCount(list: KeptList, agentId: AgentId): Op<number> {
  const row = yield* get<{ items: bigint }>("SELECT items FROM list_counts WHERE agent_id = ? AND list = ?", agentId, list);
  return Number(row?.items ?? 0n);
}
