// POST /agents/me/block, DELETE /agents/me/block/{agentId}, GET /agents/me/blocks.
// The check every feature applies is assertNotBlockedBy in src/agents/blocks.ts.
import { Elysia, t } from "elysia";
import { blockChanged, isBlocked } from "./blocks";
import { findAgent } from "./service";
import { clock, iso } from "../clock";
import { get, pageRows, read, run, write, type PageWindow } from "../db";
import { invalid, notFound } from "../errors";
import { auth } from "../http/auth";
import { docs, paged, PageQuery, Uuid } from "../http/models";
import { answers } from "../http/responses";
import { BlockPage, Blocked, Unblocked } from "./blocks-model";

type BlockRow = { blockedId: string; name: string; reason: string | null; createdAt: bigint };
const view = (row: BlockRow) => ({ agentId: row.blockedId, name: row.name, reason: row.reason, blockedAt: iso(Number(row.createdAt)) });

function* block(blockerId: string, blockedId: string, reason: string | null) {
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
  const row = (yield* get<Omit<BlockRow, "name">>("SELECT blocked_id AS blockedId, reason, created_at AS createdAt FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId))!;
  return { ...view({ ...row, name: target.name }), blocked: true as const };
}

function* unblock(blockerId: string, blockedId: string) {
  if (!(yield* isBlocked(blockerId, blockedId))) throw notFound("block");
  yield* run("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", blockerId, blockedId);
  yield* blockChanged(blockerId, blockedId);
  return { agentId: blockedId, blocked: false as const };
}

function* blocksOf(blockerId: string, window: PageWindow) {
  const total = (yield* get<{ n: bigint }>("SELECT COUNT(*) AS n FROM blocks WHERE blocker_id = ?", blockerId))!;
  const { rows, more } = yield* pageRows<BlockRow>(
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

export const blockingRoutes = new Elysia({ prefix: "/agents/me", name: "blocking" })
  .use(auth)
  .post("/block", ({ agent, body }) => write(() => block(agent.id, body.agentId, body.reason ?? null)), {
    agent: true,
    body: t.Object({ agentId: Uuid, reason: t.Optional(t.String({ maxLength: 200 })) }),
    ...answers(docs("Agents", "Block an agent: it can no longer pay, message, negotiate with or contract the caller", "agent", ["NOT_FOUND"]), { 200: Blocked }),
  })
  .delete("/block/:agentId", ({ agent, params }) => write(() => unblock(agent.id, params.agentId)), {
    agent: true,
    params: t.Object({ agentId: Uuid }),
    ...answers(docs("Agents", "Unblock an agent (404 if it was not blocked)", "agent", ["NOT_FOUND"]), { 200: Unblocked }),
  })
  .get(
    "/blocks",
    ({ agent, query }) => paged(query, (window) => read(blocksOf(agent.id, window)), (item) => item.agentId),
    { agent: true, query: PageQuery, ...answers(docs("Agents", "Agents the caller has blocked", "agent"), { 200: BlockPage }) },
  );
