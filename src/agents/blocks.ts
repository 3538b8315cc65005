// Blocks between agents: the one check every feature calls before an agent acts toward another
// (CONTRACT.md §4), and the caller's own blocks (POST /agents/me/block and the rest).
import { clock, iso } from "../clock";
import { cacheKeys, forget, get, pageRows, remember, run, select, together, type PageWindow, type Op, type Row } from "../db";
import { forbidden, invalid, notFound } from "../errors";
import { blocks } from "./schema";
import { findAgent, type AgentRow } from "./service";
import { type AgentId } from "../ids";

export function* isBlocked(blockerId: AgentId, blockedId: AgentId): Op<boolean> {
  const found = yield* remember(cacheKeys.block(blockerId, blockedId), "instance", function* () {
    return { blocked: (yield* get("SELECT 1 AS blocked FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId)) !== null };
  });
  return found.blocked;
}

/** In the write op that blocks or unblocks: the cached answer for the pair is dropped. */
export const blockChanged = (blockerId: AgentId, blockedId: AgentId) => forget(cacheKeys.block(blockerId, blockedId));

const blockedYou = () => forbidden("this agent has blocked you");

/** 403 when `targetId` has blocked `actorId`. */
export function* assertNotBlockedBy(targetId: AgentId, actorId: AgentId): Op<void> {
  if (yield* isBlocked(targetId, actorId)) throw blockedYou();
}

/**
 * In a write op where `actorId` starts something toward `targetId` (a payment, a message, a negotiation,
 * a contract): 404 naming `what` when the target does not exist, 403 when it has blocked the actor. The
 * reads, and the `alongside` queries the op needs next (the pair's lock, a row it reads later), go in
 * one round trip on PostgreSQL.
 */
export function* assertCanReach(targetId: AgentId, actorId: AgentId, what: string, ...alongside: Op<unknown>[]): Op<void> {
  const [target, blocked] = yield* together<[AgentRow | null, boolean, ...unknown[]]>(findAgent(targetId), isBlocked(targetId, actorId), ...alongside);
  if (!target) throw notFound(what);
  if (blocked) throw blockedYou();
}

/** A block with the blocked agent's name (the list joins it in). */
type NamedBlock = Pick<Row<typeof blocks>, "blockedId" | "reason" | "createdAt"> & Pick<AgentRow, "name">;
const view = (row: NamedBlock) => ({ agentId: row.blockedId, name: row.name, reason: row.reason, blockedAt: iso(row.createdAt) });

export function* block(blockerId: AgentId, blockedId: AgentId, reason: string | null) {
  if (blockerId === blockedId) throw invalid("you cannot block yourself");
  const target = yield* findAgent(blockedId);
  if (!target) throw notFound("agent");
  // Blocking again changes nothing; two blocks at once insert one row (the pair is unique).
  const inserted = yield* run(
    "INSERT INTO blocks (blocker_id, blocked_id, reason, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (blocker_id, blocked_id) DO NOTHING",
    blockerId,
    blockedId,
    reason,
    clock.nowMs(),
  );
  if (inserted > 0) yield* blockChanged(blockerId, blockedId);
  const [row] = yield* select(blocks, "blocker_id = ? AND blocked_id = ?", blockerId, blockedId);
  return { ...view({ ...row!, name: target.name }), blocked: true as const };
}

export function* unblock(blockerId: AgentId, blockedId: AgentId) {
  if (!(yield* isBlocked(blockerId, blockedId))) throw notFound("block");
  yield* run("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId);
  yield* blockChanged(blockerId, blockedId);
  return { agentId: blockedId, blocked: false as const };
}

export function* blocksOf(blockerId: AgentId, window: PageWindow) {
  const total = (yield* get<{ n: bigint }>("SELECT COUNT(*) AS n FROM blocks WHERE blocker_id = ?", blockerId))!;
  const { rows, more } = yield* pageRows<NamedBlock>(
    {
      select: `SELECT b.blocked_id AS blockedId, a.name AS name, b.reason, b.created_at AS createdAt
               FROM blocks b JOIN agents a ON a.id = b.blocked_id`,
      where: "b.blocker_id = ?",
      params: [blockerId],
      order: ["b.created_at", "b.blocked_id"],
      position: (after) => ["SELECT created_at, blocked_id FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, after],
    },
    window,
  );
  return { data: rows.map(view), total: Number(total.n), more };
}
