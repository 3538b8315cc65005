// An agent's webhook settings and delivery record: the URL and its signing secret, every attempt, a
// new secret on demand (the old one stops verifying at once), and a failed delivery sent again by hand
// (SPEC: deliveries are not retried automatically; a person or the agent may ask for it).
import { agents } from "../agents/schema";
import { findAgent, updateAgent } from "../agents/service";
import { iso } from "../clock";
import { afterCommit, find, keptCount, narrowing, newestFirst, read, update, write, type PageWindow, type Op, type Row } from "../db";
import { invalidState, notFound } from "../errors";
import { type AgentId, webhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { wakeDispatcher } from "./dispatcher";
import { countResend } from "./resends";
import { webhookDeliveries, webhookEvents } from "./schema";

/** Before a URL is set: it resolves to a public address (checked again at each delivery). */
export async function assertWebhookCallable(url: string | null): Promise<void> {
  if (url !== null) await assertCallable(url, "webhookUrl");
}

/** A write op: sets or clears the URL. The signing secret is created with the first URL and kept across changes. */
export function* setWebhook(agentId: AgentId, url: string | null) {
  const current = (yield* find(agents, agentId, true))!;
  const save = (webhookUrl: string | null, secret: string | null) => updateAgent(agentId, { webhookUrl, webhookSecret: secret });
  if (url === null) {
    yield* save(null, current.webhookSecret);
    return { agentId, webhookUrl: null };
  }
  const secret = current.webhookSecret ?? webhookSecret();
  yield* save(url, secret);
  return { agentId, webhookUrl: url, secret };
}

/** A write op: a new signing secret, returned once; deliveries from now on are signed with it. */
export function* rotateWebhookSecret(agentId: AgentId) {
  const current = (yield* find(agents, agentId, true))!;
  if (!current.webhookUrl) throw invalidState("there is no webhook URL: set one first (its secret is created with it)");
  const secret = webhookSecret();
  yield* updateAgent(agentId, { webhookSecret: secret });
  return { agentId, webhookUrl: current.webhookUrl, secret };
}

/**
 * The event of a delivery that did not succeed goes back to the outbox, to be sent again (same
 * webhook-id: a receiver that did get it dedupes), to the URL and with the secret of now. Bounded per
 * event and per agent (resends.ts); a resend refused for its state does not count. Not an op but an
 * orchestration: the resend is counted in this process between its read and its write.
 */
export async function resendDelivery(agentId: AgentId, deliveryId: string) {
  const delivery = await read(find(webhookDeliveries, deliveryId));
  if (!delivery || delivery.agentId !== agentId) throw notFound("webhook delivery");
  if (delivery.outcome === "DELIVERED") throw invalidState("this delivery succeeded; there is nothing to send again");
  const uncount = countResend(agentId, delivery.eventId);
  try {
    return await write(() => requeue(delivery.eventId));
  } catch (error) {
    uncount();
    throw error;
  }
}

/** A write op: a failed (or skipped) event back to PENDING, and the dispatcher woken after the commit. */
function* requeue(eventId: string) {
  const event = (yield* find(webhookEvents, eventId, true))!;
  if (event.status === "PENDING" || event.status === "SENDING") throw invalidState("this event is already on its way");
  if (event.status === "DELIVERED") throw invalidState("a later attempt delivered this event");
  yield* update(webhookEvents, eventId, { status: "PENDING", claimedAt: null });
  yield* afterCommit(wakeDispatcher);
  return { eventId, status: "PENDING" as const };
}

function deliveryView(row: Row<typeof webhookDeliveries>) {
  return {
    id: row.id,
    eventId: row.eventId,
    event: row.event,
    url: row.url,
    outcome: row.outcome,
    httpStatus: row.httpStatus === null ? null : Number(row.httpStatus),
    error: row.error,
    durationMs: Number(row.durationMs),
    createdAt: iso(row.createdAt),
  };
}

export function deliveriesOf(agentId: AgentId, window: PageWindow) {
  return newestFirst({ table: webhookDeliveries, scope: { where: "agent_id = ?", params: [agentId] }, total: () => keptCount("webhook_deliveries", agentId) }, window, deliveryView);
}

/** Failed attempts of every agent (or one), newest first: the operator's view of webhooks that do not work. */
export function failingDeliveries(agentId: AgentId | undefined, window: PageWindow) {
  const narrow = narrowing({ "agent_id = ?": agentId });
  return newestFirst({ table: webhookDeliveries, scope: { where: "outcome <> 'DELIVERED'", params: [] }, narrow }, window, (row) => ({ agentId: row.agentId, ...deliveryView(row) }));
}

export function* webhookOf(agentId: AgentId): Op<{ url: string | null; hasSecret: boolean }> {
  const row = (yield* findAgent(agentId))!;
  return { url: row.webhookUrl, hasSecret: row.webhookSecret !== null };
}
