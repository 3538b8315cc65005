// Direct messages and the inbox. Inbox items are direct messages (type "direct") and the system
// messages emit() writes for every other event (senderId null, type = event name).
import { assertCanReach } from "../agents/blocks";
import { lockAgents } from "../agents/service";
import { clock, iso } from "../clock";
import { find, get, newestFirst, type PageWindow } from "../db";
import { ApiError, invalid, notFound } from "../errors";
import { type AgentId, uuid } from "../ids";
import { HOUR_MS } from "../time";
import { emit } from "../webhooks/outbox";
import { messages } from "../inbox/schema";
import { addToInbox, inboxCount, markMessageRead, type Message } from "../inbox/store";
import { jsonText, readJson } from "../json";

export const PAIR_LIMIT_PER_HOUR = 20;

export function messageView(row: Message) {
  return {
    id: row.id,
    senderId: row.senderId,
    recipientId: row.recipientId,
    type: row.type,
    subject: row.subject,
    body: row.body,
    metadata: row.metadata === null ? null : readJson(row.metadata),
    read: row.read === 1n,
    createdAt: iso(row.createdAt),
  };
}

/** A write op. */
export function* sendMessage(
  senderId: AgentId,
  input: { recipientId: AgentId; subject: string; body: string; metadata?: Record<string, unknown> },
) {
  if (input.recipientId === senderId) throw invalid("you cannot message yourself");
  // The hourly pair limit holds across instances: messages between the same two agents count one at a time.
  yield* assertCanReach(input.recipientId, senderId, "recipient agent", lockAgents([senderId, input.recipientId]));
  const now = clock.nowMs();
  const window = (yield* get<{ n: bigint; oldest: bigint | null }>(
    `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages
     WHERE sender_id = ? AND recipient_id = ? AND type = 'direct' AND created_at > ?`,
    senderId,
    input.recipientId,
    now - HOUR_MS,
  ))!;
  if (window.n >= BigInt(PAIR_LIMIT_PER_HOUR)) {
    const retryAfterSeconds = Math.max(1, Math.ceil((Number(window.oldest) + HOUR_MS - now) / 1000));
    throw new ApiError("PAIR_LIMIT_EXCEEDED", `at most ${PAIR_LIMIT_PER_HOUR} messages per hour to the same agent`, { retryAfterSeconds });
  }
  const row = yield* addToInbox({
    id: uuid(),
    senderId,
    recipientId: input.recipientId,
    type: "direct",
    subject: input.subject,
    body: input.body,
    metadata: input.metadata ? jsonText(input.metadata) : null,
    createdAt: BigInt(now),
  });
  yield* emit(row.recipientId, "message.received", { messageId: row.id, senderId, subject: row.subject, body: row.body }, null);
  return messageView(row);
}

export function inbox(agentId: AgentId, filter: { unreadOnly?: boolean; type?: string }, window: PageWindow) {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.unreadOnly) where.push("read = 0");
  if (filter.type) {
    where.push("type = ?");
    params.push(filter.type);
  }
  const narrow = where.length > 0 ? { where: where.join(" AND "), params } : undefined;
  const scope = { where: "recipient_id = ?", params: [agentId] };
  return newestFirst({ table: messages, scope, narrow, total: () => inboxCount(agentId, filter) }, window, messageView);
}

/** A message its sender or recipient may read; anyone else gets 404. */
export function* getMessage(agentId: AgentId, id: string) {
  const row = yield* find(messages, id);
  if (!row || (row.recipientId !== agentId && row.senderId !== agentId)) throw notFound("message");
  return messageView(row);
}

/** A write op: only the recipient marks read (anyone else: 404); marking twice changes nothing. */
export function* markRead(agentId: AgentId, id: string) {
  const row = yield* find(messages, id);
  if (!row || row.recipientId !== agentId) throw notFound("message");
  yield* markMessageRead(row);
  return messageView({ ...row, read: 1n });
}

/** How many inbox items are unread, as GET /messages/unread-count answers. */
export function* unreadCountView(agentId: AgentId) {
  return { unreadCount: yield* inboxCount(agentId, { unreadOnly: true }) };
}
