// Every event an agent receives goes through emit(), inside the write op of its cause:
// it lands in the agent's inbox (as a system message unless it is a direct message) and, when the
// agent has a webhook URL, in the outbox, which the dispatcher delivers after the commit.
import { clock } from "../clock";
import { findAgent } from "../agents/service";
import { afterCommit, insertOnly, type Op } from "../db";
import type { EventName } from "../inbox/schema";
import { addToInbox } from "../inbox/store";
import { type AgentId, uuid } from "../ids";
import { wakeDispatcher } from "./dispatcher";
import { webhookEvents } from "./schema";
import { jsonText } from "../json";

export function* emit(agentId: AgentId, event: EventName, data: Record<string, unknown>, inbox: { subject: string; body: string } | null): Op<void> {
  const now = clock.nowMs();
  if (inbox) {
    yield* addToInbox({ id: uuid(), senderId: null, recipientId: agentId, type: event, subject: inbox.subject, body: inbox.body, metadata: jsonText(data), createdAt: BigInt(now) });
  }
  if (!(yield* findAgent(agentId))?.webhookUrl) return;
  yield* insertOnly(webhookEvents, { id: `evt_${uuid().replaceAll("-", "")}`, agentId, event, data: jsonText(data), status: "PENDING", createdAt: now });
  yield* afterCommit(wakeDispatcher);
}

/** A money event for an agent: notification.financial with a `kind`, plus an inbox line. */
export function* notifyFinancial(agentId: AgentId, kind: string, data: Record<string, unknown>, summary: string): Op<void> {
  yield* emit(agentId, "notification.financial", { kind, ...data }, { subject: kind, body: summary });
}
