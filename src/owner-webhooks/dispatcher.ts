// Sends the owner webhook's outbox after its commit, outside every transaction, with the loop of
// src/dispatch.ts: woken after each commit that queued a notice, and every 5 s by a job (the backstop:
// retries, and what an instance that died left). Unlike the agent's webhook (SPEC: one attempt), a
// notice is retried with back-off, 30 s after the first failure, doubling up to 1 h, for 24 h, then
// FAILED: an owner must hear of a held outflow even if their receiver was down for an hour. Each
// attempt goes to the URL, in the format and with the secret in force then; its webhook-id is the
// notice's, so a receiver that got an attempt whose answer was lost dedupes the next.
//
// At most once per (event, owner) is the outbox's unique key; a notice is DELIVERED once its receiver
// answered 2xx. A crash between that answer and its record sends it again, with the same webhook-id.
import { clock } from "../clock";
import { read, run, write, type Op, type Row } from "../db";
import { backOff, claimDue, dispatcher } from "../dispatch";
import { logLine } from "../log";
import { DAY_MS, HOUR_MS } from "../time";
import { postSigned, type Attempt } from "../webhooks/signed";
import { render } from "./formats";
import { ownerWebhookNotices } from "./schema";
import { ownerWebhookOf } from "./settings";

type Notice = Row<typeof ownerWebhookNotices>;

const MAX_IN_FLIGHT = 16;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = HOUR_MS;
/** A notice still not delivered this long after it was queued is given up on (FAILED) at its next failure. */
const GIVE_UP_AFTER_MS = DAY_MS;
/** How long a stop waits for the attempts in flight to be recorded. */
const STOP_WAIT_MS = 5_000;

const sender = dispatcher("owner webhook", MAX_IN_FLIGHT, (limit) => claimDue(ownerWebhookNotices, limit), deliver);

/** Sends what is due; called after every commit that queued a notice, and by the job. */
export const wakeOwnerWebhooks = (): void => sender.wake();

/** Claims nothing more, and waits (a few seconds at most) for the attempts in flight to be recorded. */
export const stopOwnerWebhooks = (): Promise<void> => sender.stop(STOP_WAIT_MS);

/** A write op: what the attempt came to (null: the owner has no webhook any more). Recorded only while the claim is still this attempt's. */
function* record(notice: Notice, attempt: Attempt | null): Op<void> {
  const now = clock.nowMs();
  const mine = "id = ? AND status = 'QUEUED' AND claimed_at = ?";
  if (attempt === null) {
    yield* run(`UPDATE owner_webhook_notices SET status = 'SKIPPED', claimed_at = NULL, error = 'no webhook' WHERE ${mine}`, notice.id, notice.claimedAt);
  } else if (attempt.outcome === "DELIVERED") {
    yield* run(`UPDATE owner_webhook_notices SET status = 'DELIVERED', delivered_at = ?, http_status = ?, error = NULL, claimed_at = NULL WHERE ${mine}`, now, attempt.httpStatus, notice.id, notice.claimedAt);
  } else if (now - Number(notice.createdAt) >= GIVE_UP_AFTER_MS) {
    yield* run(`UPDATE owner_webhook_notices SET status = 'FAILED', http_status = ?, error = ?, claimed_at = NULL WHERE ${mine}`, attempt.httpStatus, attempt.error, notice.id, notice.claimedAt);
  } else {
    const next = now + backOff(Number(notice.attempts), FIRST_RETRY_MS, LONGEST_RETRY_MS);
    yield* run(`UPDATE owner_webhook_notices SET next_attempt_at = ?, http_status = ?, error = ?, claimed_at = NULL WHERE ${mine}`, next, attempt.httpStatus, attempt.error, notice.id, notice.claimedAt);
  }
}

async function deliver(notice: Notice): Promise<void> {
  const hook = await read(ownerWebhookOf(notice.ownerId));
  let attempt: Attempt | null = null;
  if (hook) {
    const { url, body } = render(hook.format, hook.url, notice);
    attempt = await postSigned("owner", url, hook.secret, notice.id, body);
    if (attempt.outcome !== "DELIVERED") {
      logLine({ level: "warn", msg: "owner webhook attempt failed", noticeId: notice.id, ownerId: notice.ownerId, attempts: Number(notice.attempts), outcome: attempt.outcome, error: attempt.error });
    }
  }
  try {
    await write(() => record(notice, attempt));
  } catch (error) {
    // Sent but not recorded: the claim ages and the notice goes again, with the same webhook-id.
    logLine({ level: "warn", msg: "owner webhook attempt not recorded", noticeId: notice.id, error: String((error as Error).message ?? error) });
  }
}
