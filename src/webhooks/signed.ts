// One POST of a webhook, signed the Standard Webhooks way (webhook-id, webhook-timestamp,
// webhook-signature: an HMAC-SHA256 of "id.timestamp.body"), through the outbound guard, within 5 s,
// the answer's body never read. The agent's webhook and the owner's (src/owner-webhooks) both send
// through it, so a receiver verifies either with the same library.
import { createHmac } from "node:crypto";
import { outboundFetch, OutboundRefused } from "../net/outbound";
import type { DeliveryOutcome } from "./schema";

export const DELIVERY_TIMEOUT_MS = 5000;

export type Attempt = { outcome: DeliveryOutcome; httpStatus: number | null; error: string | null };

/** Standard Webhooks signature: base64 HMAC-SHA256 of "id.timestamp.body", keyed by the secret's bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** Whose receiver a delivery went to: an agent's webhook, or an owner account's. */
export type Receiver = "agent" | "owner";

/** Attempts made by this process, by receiver and outcome (the metrics' agentbank_webhook_deliveries_total). */
export const deliveryAttempts: Record<Receiver, Record<DeliveryOutcome, number>> = {
  agent: { DELIVERED: 0, FAILED: 0, TIMEOUT: 0, REFUSED: 0 },
  owner: { DELIVERED: 0, FAILED: 0, TIMEOUT: 0, REFUSED: 0 },
};

/** POSTs `body` (JSON) to `url`, signed with `secret` as message `id`; 2xx is DELIVERED. Never throws. */
export async function postSigned(receiver: Receiver, url: string, secret: string, id: string, body: string): Promise<Attempt> {
  const attempt = await attemptSigned(url, secret, id, body);
  deliveryAttempts[receiver][attempt.outcome] += 1;
  return attempt;
}

async function attemptSigned(url: string, secret: string, id: string, body: string): Promise<Attempt> {
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
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": sign(secret, id, timestamp, body),
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
