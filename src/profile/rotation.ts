// Rotating the agent's own key (pp_…), from the API or the console: the old key stops working at once,
// and so does every restricted key it made and every key made from those (unless the caller keeps
// them): a thief's keys do not outlive the stolen key.
import { rotateApiKey } from "../agents/service";
import type { Op } from "../db";
import { revokeKeysMadeWith } from "../keys/service";
import { type AgentId } from "../ids";

/** A write op: a new agent key (shown once) and how many restricted keys ended with the old one. `presentedHash`: see replaceKeyHash. */
export function* rotateAgentKey(agentId: AgentId, presentedHash: string | undefined, keepKeys: boolean): Op<{ apiKey: string; revokedKeys: number }> {
  const { apiKey, replaced } = yield* rotateApiKey(agentId, presentedHash);
  return { apiKey, revokedKeys: keepKeys ? 0 : yield* revokeKeysMadeWith(agentId, replaced) };
}
