// An agent's webhook settings and delivery record: the URL and its signing secret, every attempt, a
// new secret on demand (the old one stops verifying at once), and a failed delivery sent again by hand
// (SPEC: deliveries are not retried automatically; a person or the agent may ask for it).
import { updateAgent } from "../agents/service";
import { iso } from "../clock";
import { afterCommit, FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { invalidState, notFound } from "../errors";
import { webhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { wakeDispatcher } from "./dispatcher";
import { countResend } from "./resends";

type DeliveryRow = {
  id: string;
  eventId: string;
  event: string;
  url: string;
  outcome: string;
  httpStatus: bigint | null;
  error: string | null;
  durationMs: bigint;
  createdAt: bigint;
};

/** Sets or clears the URL. The signing secret is created with the first URL and kept across changes. */
export async function setWebhook(agentId: string, url: string | null) {
  if (url !== null) await assertCallable(url, "webhookUrl");
  const created = webhookSecret();
  return write(function* () {
    const current = (yield* get<{ secret: string | null }>(`SELECT webhook_secret AS secret FROM agents WHERE id = ? ${FOR_UPDATE}`, agentId))!;
    const update = (webhookUrl: string | null, secret: string | null) => updateAgent(agentId, { webhookUrl, webhookSecret: secret });
    if (url === null) {
      yield* update(null, current.secret);
      return { agentId, webhookUrl: null };
    }
    const secret = current.secret ?? created;
    yield* update(url, secret);
    return { agentId, webhookUrl: url, secret };
  });
}

/** A write op: a new signing secret, returned once; deliveries from now on are signed with it. */
export function* rotateWebhookSecret(agentId: string) {
  const current = (yield* get<{ url: string | null }>(`SELECT webhook_url AS url FROM agents WHERE id = ? ${FOR_UPDATE}`, agentId))!;
  if (!current.url) throw invalidState("there is no webhook URL: set one first (its secret is created with it)");
  const secret = webhookSecret();
  yield* updateAgent(agentId, { webhookSecret: secret });
  return { agentId, webhookUrl: current.url, secret };
}

/**
 * The event of a delivery that did not succeed goes back to the outbox, to be sent again (same
 * webhook-id: a receiver that did get it dedupes), to the URL and with the secret of now. Bounded per
 * event and per agent (resends.ts); a resend refused for its state does not count.
 */
export async function resendDelivery(agentId: string, deliveryId: string) {
  const delivery = await read(get<{ eventId: string; outcome: string }>("SELECT event_id AS eventId, outcome FROM webhook_deliveries WHERE id = ? AND agent_id = ?", deliveryId, agentId));
  if (!delivery) throw notFound("webhook delivery");
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
  const event = (yield* get<{ status: string }>(`SELECT status FROM webhook_events WHERE id = ? ${FOR_UPDATE}`, eventId))!;
  if (event.status === "PENDING" || event.status === "SENDING") throw invalidState("this event is already on its way");
  if (event.status === "DELIVERED") throw invalidState("a later attempt delivered this event");
  yield* run("UPDATE webhook_events SET status = 'PENDING', claimed_at = NULL WHERE id = ?", eventId);
  yield* afterCommit(wakeDispatcher);
  return { eventId, status: "PENDING" as const };
}

export function deliveriesOf(agentId: string, window: PageWindow) {
  return newestFirst(
    {
      table: "webhook_deliveries",
      columns: "id, event_id AS eventId, event, url, outcome, http_status AS httpStatus, error, duration_ms AS durationMs, created_at AS createdAt",
      scope: { where: "agent_id = ?", params: [agentId] },
    },
    window,
    (row: DeliveryRow) => ({
      id: row.id,
      eventId: row.eventId,
      event: row.event,
      url: row.url,
      outcome: row.outcome,
      httpStatus: row.httpStatus === null ? null : Number(row.httpStatus),
      error: row.error,
      durationMs: Number(row.durationMs),
      createdAt: iso(Number(row.createdAt)),
    }),
  );
}

export function* webhookOf(agentId: string): Query<{ url: string | null; hasSecret: boolean }> {
  const row = (yield* get<{ url: string | null; secret: string | null }>("SELECT webhook_url AS url, webhook_secret AS secret FROM agents WHERE id = ?", agentId))!;
  return { url: row.url, hasSecret: row.secret !== null };
}
