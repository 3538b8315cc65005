// The one check every feature calls before an agent acts toward another (CONTRACT.md §4).
import { get, type Query } from "../db";
import { forbidden } from "../errors";

export function* isBlocked(blockerId: string, blockedId: string): Query<boolean> {
  return (yield* get("SELECT 1 AS blocked FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId)) !== null;
}

/** 403 when `targetId` has blocked `actorId`. */
export function* assertNotBlockedBy(targetId: string, actorId: string): Query<void> {
  if (yield* isBlocked(targetId, actorId)) throw forbidden("this agent has blocked you");
}
