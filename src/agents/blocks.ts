// The one check every feature calls before an agent acts toward another (CONTRACT.md §4).
import { sqlite } from "../db";
import { forbidden } from "../errors";

export function isBlocked(blockerId: string, blockedId: string): boolean {
  return sqlite.query("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?").get(blockerId, blockedId) !== null;
}

/** 403 when `targetId` has blocked `actorId`. */
export function assertNotBlockedBy(targetId: string, actorId: string): void {
  if (isBlocked(targetId, actorId)) throw forbidden("this agent has blocked you");
}
