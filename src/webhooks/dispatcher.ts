// Delivers PENDING outbox events after their commit: signed the Standard Webhooks way, 5 s timeout,
// one attempt each (SPEC: not retried), every attempt recorded. Runs outside every transaction and
// never delays a request. An instance claims the events it sends (PENDING → SENDING, FOR UPDATE SKIP
// LOCKED on PostgreSQL, so instances sharing the outbox never take the same one); a claim older than a
// minute belongs to an instance that died and is taken again. Around a crash an event may therefore
// arrive twice: receivers dedupe on webhook-id.
import { findAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { all, columns, countAdded, insert, read, SKIP_LOCKED, update, write, type Op, type Row } from "../db";
import { dispatcher } from "../dispatch";
import { uuid } from "../ids";
import { logLine } from "../log";
import { MINUTE_MS } from "../time";
import { webhookDeliveries, webhookEvents } from "./schema";
import { postSigned, type Attempt } from "./signed";
import { readJson } from "../json";

const MAX_IN_FLIGHT = 64;
/** A claim this old (wall-clock ms) was made by an instance that stopped before recording the attempt. */
const RECLAIM_AFTER_MS = MINUTE_MS;

type WebhookEvent = Row<typeof webhookEvents>;
type Outcome = Attempt | { outcome: "SKIPPED"; httpStatus: null; error: string };

/** A write op: takes up to `limit` events to send. Wall-clock time: the test clock must not age claims. */
function* claim(limit: number): Op<WebhookEvent[]> {
  const now = Date.now();
  return yield* all<WebhookEvent>(
    `UPDATE webhook_events SET status = 'SENDING', claimed_at = ?
     WHERE id IN (SELECT id FROM webhook_events WHERE status = 'PENDING' OR (status = 'SENDING' AND claimed_at < ?)
                  ORDER BY created_at LIMIT ? ${SKIP_LOCKED})
     RETURNING ${columns(webhookEvents)}`,
    now,
    now - RECLAIM_AFTER_MS,
    limit,
  );
}

const sender = dispatcher("webhook", MAX_IN_FLIGHT, claim, deliver);

/** Sends what is waiting, up to MAX_IN_FLIGHT at a time; called after every commit that queued an event. */
export const wakeDispatcher = (): void => sender.wake();

export function stopDispatcher(): void {
  void sender.stop();
}

function attempt(url: string, secret: string, event: WebhookEvent): Promise<Attempt> {
  const body = JSON.stringify({ event: event.event, agentId: event.agentId, data: readJson(event.data), timestamp: iso(event.createdAt) });
  return postSigned("agent", url, secret, event.id, body);
}

async function deliver(event: WebhookEvent): Promise<void> {
  const agent = await read(findAgent(event.agentId));
  const target = agent?.webhookUrl && agent.webhookSecret ? { url: agent.webhookUrl, secret: agent.webhookSecret } : null;
  const started = performance.now();
  const result: Outcome = target ? await attempt(target.url, target.secret, event) : { outcome: "SKIPPED", httpStatus: null, error: "no webhook URL" };
  const durationMs = Math.round(performance.now() - started);
  if (sender.stopped) return;
  await write(function* () {
    yield* update(webhookEvents, event.id, { status: result.outcome === "DELIVERED" || result.outcome === "SKIPPED" ? result.outcome : "FAILED" });
    if (!target || result.outcome === "SKIPPED") return;
    yield* insert(webhookDeliveries, {
      id: uuid(),
      eventId: event.id,
      agentId: event.agentId,
      event: event.event,
      url: target.url,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      error: result.error,
      durationMs,
      createdAt: clock.nowMs(),
    });
    yield* countAdded("webhook_deliveries", event.agentId);
  });
  if (result.outcome !== "DELIVERED" && result.outcome !== "SKIPPED") {
    logLine({ level: "warn", msg: "webhook delivery failed", eventId: event.id, agentId: event.agentId, outcome: result.outcome, error: result.error });
  }
}
