// The inbox's rows and its counts, written together: a total or an unread count is a sum over a few
// rows of inbox_counts (one per message type), never a count over the inbox, which may hold millions.
// Below messaging and webhooks: a direct message (messaging/) and every notice (emit(), webhooks/outbox.ts)
// land here.
import { get, insertOnly, run, runLater, type Op, type Row } from "../db";
import { messages } from "./schema";
import { type AgentId } from "../ids";

export type Message = Row<typeof messages>;

/** A write op: the message lands unread in its recipient's inbox, and the counts follow; answers it as stored. */
export function* addToInbox(message: Omit<Message, "read">): Op<Message> {
  const row = { ...message, read: 0n };
  yield* insertOnly(messages, row);
  yield* runLater(
    `INSERT INTO inbox_counts (agent_id, type, messages, unread) VALUES (?, ?, 1, 1)
     ON CONFLICT (agent_id, type) DO UPDATE SET messages = inbox_counts.messages + 1, unread = inbox_counts.unread + 1`,
    row.recipientId,
    row.type,
  );
  return row;
}

/** A write op: the message is read; the unread count drops only if it was unread (marking twice is one). */
export function* markMessageRead(message: { id: string; recipientId: AgentId; type: string }): Op<void> {
  if ((yield* run("UPDATE messages SET read = 1 WHERE id = ? AND read = 0", message.id)) === 0) return;
  yield* run("UPDATE inbox_counts SET unread = unread - 1 WHERE agent_id = ? AND type = ?", message.recipientId, message.type);
}

/** How many messages the agent's inbox holds (of one type, unread only, as asked). */
export function* inboxCount(agentId: AgentId, filter: { unreadOnly?: boolean; type?: string }): Op<number> {
  const column = filter.unreadOnly ? "unread" : "messages";
  const row = filter.type
    ? yield* get<{ n: bigint }>(`SELECT CAST(COALESCE(SUM(${column}), 0) AS BIGINT) AS n FROM inbox_counts WHERE agent_id = ? AND type = ?`, agentId, filter.type)
    : yield* get<{ n: bigint }>(`SELECT CAST(COALESCE(SUM(${column}), 0) AS BIGINT) AS n FROM inbox_counts WHERE agent_id = ?`, agentId);
  return Number(row!.n);
}
