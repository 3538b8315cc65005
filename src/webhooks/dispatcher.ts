// Delivers PENDING outbox events after their commit: signed the Standard Webhooks way, 5 s timeout,
// one attempt each (SPEC: not retried), every attempt recorded. Runs outside every transaction and
// never delays a request. Events still PENDING at a crash are delivered after the restart, so a
// receiver may see an event twice: it dedupes on webhook-id.
import { createHmac } from "node:crypto";
import { clock, iso } from "../clock";
import { sqlite, write } from "../db";
import { uuid } from "../ids";
import { logLine } from "../http/log";
import { outboundFetch, OutboundRefused } from "../net/outbound";

export const DELIVERY_TIMEOUT_MS = 5000;
const MAX_IN_FLIGHT = 64;

type PendingEvent = { id: string; agentId: string; event: string; data: string; createdAt: bigint };
type Outcome = { outcome: "DELIVERED" | "FAILED" | "TIMEOUT" | "REFUSED" | "SKIPPED"; httpStatus: number | null; error: string | null };

const inFlight = new Set<string>();
let stopped = false;

/** Standard Webhooks signature: base64 HMAC-SHA256 of "id.timestamp.body", keyed by the secret's bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export function wakeDispatcher(): void {
  if (stopped || inFlight.size >= MAX_IN_FLIGHT) return;
  const events = sqlite
    .query(
      `SELECT id, agent_id AS agentId, event, data, created_at AS createdAt FROM webhook_events
       WHERE status = 'PENDING' ORDER BY created_at LIMIT ?`,
    )
    .all(MAX_IN_FLIGHT * 2) as PendingEvent[];
  for (const event of events) {
    if (inFlight.size >= MAX_IN_FLIGHT) break;
    if (inFlight.has(event.id)) continue;
    inFlight.add(event.id);
    void deliver(event).finally(() => {
      inFlight.delete(event.id);
      wakeDispatcher();
    });
  }
}

export function stopDispatcher(): void {
  stopped = true;
}

async function attempt(url: string, secret: string, event: PendingEvent): Promise<Outcome> {
  const body = JSON.stringify({ event: event.event, agentId: event.agentId, data: JSON.parse(event.data), timestamp: iso(Number(event.createdAt)) });
  // Wall-clock time, not the service clock: receivers compare it with their own clock (the test clock
  // would make every delivery "too new" to the Standard Webhooks libraries).
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await outboundFetch(url, {
      method: "POST",
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      headers: {
        "content-type": "application/json",
        "user-agent": "agentbank-webhooks/0.6",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": sign(secret, event.id, timestamp, body),
      },
    });
    await response.body?.cancel();
    return response.ok
      ? { outcome: "DELIVERED", httpStatus: response.status, error: null }
      : { outcome: "FAILED", httpStatus: response.status, error: `receiver answered ${response.status}` };
  } catch (error) {
    if (error instanceof OutboundRefused) return { outcome: "REFUSED", httpStatus: null, error: error.message };
    const timedOut = (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError";
    return timedOut
      ? { outcome: "TIMEOUT", httpStatus: null, error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` }
      : { outcome: "FAILED", httpStatus: null, error: String((error as Error).message ?? error).slice(0, 300) };
  }
}

async function deliver(event: PendingEvent): Promise<void> {
  const target = sqlite.query("SELECT webhook_url AS url, webhook_secret AS secret FROM agents WHERE id = ?").get(event.agentId) as {
    url: string | null;
    secret: string | null;
  } | null;
  const started = performance.now();
  const result: Outcome =
    target?.url && target.secret ? await attempt(target.url, target.secret, event) : { outcome: "SKIPPED", httpStatus: null, error: "no webhook URL" };
  const durationMs = Math.round(performance.now() - started);
  if (stopped) return;
  await write(() => {
    sqlite.query("UPDATE webhook_events SET status = ? WHERE id = ?").run(result.outcome === "DELIVERED" ? "DELIVERED" : result.outcome === "SKIPPED" ? "SKIPPED" : "FAILED", event.id);
    if (result.outcome === "SKIPPED") return;
    sqlite
      .query(
        `INSERT INTO webhook_deliveries (id, event_id, agent_id, event, url, outcome, http_status, error, duration_ms, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(uuid(), event.id, event.agentId, event.event, target!.url, result.outcome, result.httpStatus, result.error, durationMs, clock.nowMs());
  });
  if (result.outcome !== "DELIVERED" && result.outcome !== "SKIPPED") {
    logLine({ level: "warn", msg: "webhook delivery failed", eventId: event.id, agentId: event.agentId, outcome: result.outcome, error: result.error });
  }
}
