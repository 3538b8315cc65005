// A restricted key made on the agent's or its owner's request (POST /agents/me/keys, the console's Keys
// page): made, and the owner told which key made it — a key the owner did not make is news to them.
import { type Op } from "../db";
import { type AgentId, sha256Hex } from "../ids";
import { createKey, type Maker, type NewKey } from "../keys/create";
import { keyView, type KeyRow } from "../keys/service";
import { tellOwnerOfKey } from "../notices/owner";

/** A write op: the key `maker` asks for (`by`: who made it, in the owner's notice), with its secret, shown once. */
export function* makeKey(agentId: AgentId, maker: Maker, body: NewKey, by: string): Op<{ row: KeyRow; apiKey: string }> {
  const made = yield* createKey(agentId, maker, body);
  yield* tellOwnerOfKey(agentId, { id: made.row.id, name: made.row.name, scopes: body.scopes, expiresAt: made.row.expiresAt }, by);
  return made;
}

/**
 * A write op: the key POST /agents/me/keys asks for with `presented` (the agent key, the owner key, or
 * the restricted key `key`), as it answers it (its view and, once, its secret). Made by a restricted key,
 * it is that key's child; by the agent or owner key, rotating that key revokes it.
 */
export function* newKeyBy(agentId: AgentId, key: KeyRow | null, presented: string, body: NewKey) {
  const maker: Maker = key ? { parent: key } : { madeWith: sha256Hex(presented) };
  const by = key ? `The restricted key “${key.name}”` : presented.startsWith("po_") ? "The owner key" : "The agent's own key";
  const { row, apiKey } = yield* makeKey(agentId, maker, body, by);
  return { ...(yield* keyView(row)), apiKey };
}
