// The one check every feature calls before an agent acts toward another (CONTRACT.md §4).
import { cacheKeys, forget, get, remember, type Query } from "../db";
import { forbidden } from "../errors";

export function* isBlocked(blockerId: string, blockedId: string): Query<boolean> {
  const found = yield* remember(cacheKeys.block(blockerId, blockedId), "instance", function* () {
    return { blocked: (yield* get("SELECT 1 AS blocked FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId)) !== null };
  });
  return found.blocked;
}

/** In the write op that blocks or unblocks: the cached answer for the pair is dropped. */
export const blockChanged = (blockerId: string, blockedId: string) => forget(cacheKeys.block(blockerId, blockedId));

/** 403 when `targetId` has blocked `actorId`. */
export function* assertNotBlockedBy(targetId: string, actorId: string): Query<void> {
  if (yield* isBlocked(targetId, actorId)) throw forbidden("this agent has blocked you");
}
