// queueOwnerWebhook(): the step notices/ yields inside a feature's write op to tell an owner through
// their webhook once that op has committed. The notice is a row of the outbox written in the op's
// transaction, so it exists if and only if the op committed; the dispatcher sends it afterwards, never
// inside a transaction. This folder knows no kind of notice: notices/ (above it) names them.
import { clock, iso, isoOrNull } from "../clock";
import { afterCommit, get, insertNew, select, type Op, type Row } from "../db";
import { ApiError, invalid } from "../errors";
import { uuid } from "../ids";
import { HOUR_MS } from "../time";
import { wakeOwnerWebhooks } from "./dispatcher";
import { ownerWebhookNotices } from "./schema";
import { channelsOf } from "./settings";
import type { Notice } from "./kinds";
import { jsonText } from "../json";


/** Printable ASCII without spaces, at most 200 characters, as a mail's event. */
const EVENT = /^[\x21-\x7e]{1,200}$/;
const MAX_SUBJECT = 200;
const MAX_TEXT = 10_000;
const MAX_DATA = 20_000;
/** Test notices an owner may send an hour: each is an outbound request, retried for a day if it fails. */
const TEST_NOTICES_PER_HOUR = 10;
const TEST_EVENT = "owner.test:";

/**
 * A write op step: queues `notice` for the owner's webhook, to be sent after the commit; nothing when
 * the owner has no webhook, turned it off for the notice's kind, or was already sent this event.
 */
export function* queueOwnerWebhook(ownerId: string, notice: Notice, agentName: string): Op<void> {
  if (!EVENT.test(notice.event)) throw invalid("event: expected 1 to 200 printable ASCII characters without spaces");
  const data = jsonText(notice.data);
  if ([...notice.subject].length > MAX_SUBJECT || notice.text.length > MAX_TEXT || data.length > MAX_DATA) {
    throw invalid(`a notice has at most ${MAX_SUBJECT} characters of subject, ${MAX_TEXT} of text and ${MAX_DATA} of data`);
  }
  if (!(yield* channelsOf(ownerId, notice.kind)).webhook) return;
  const now = clock.nowMs();
  const queued = yield* insertNew(
    ownerWebhookNotices,
    {
      id: `msg_${uuid().replaceAll("-", "")}`,
      ownerId,
      event: notice.event,
      kind: notice.kind,
      agentId: notice.agentId,
      agentName,
      subject: notice.subject,
      message: notice.text,
      link: notice.link,
      data,
      status: "QUEUED",
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
    },
    ["ownerId", "event"],
  );
  if (queued) yield* afterCommit(wakeOwnerWebhooks);
}

/**
 * A write op: the owner's test notice (its event `owner.test:<uuid>`), through queueOwnerWebhook like any
 * other; at most TEST_NOTICES_PER_HOUR an hour (429 past it). Answers whether it was queued (false: the
 * owner has no webhook, or turned it off for this kind).
 */
export function* queueTestNotice(ownerId: string, notice: Omit<Notice, "event">, agentName: string): Op<boolean> {
  const since = clock.nowMs() - HOUR_MS;
  const recent = yield* get<{ count: bigint }>("SELECT COUNT(*) AS count FROM owner_webhook_notices WHERE owner_id = ? AND created_at > ? AND event LIKE ?", ownerId, since, `${TEST_EVENT}%`);
  if (Number(recent?.count ?? 0) >= TEST_NOTICES_PER_HOUR) throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${TEST_NOTICES_PER_HOUR} test notices an hour: try again later`);
  const event = `${TEST_EVENT}${uuid()}`;
  yield* queueOwnerWebhook(ownerId, { ...notice, event }, agentName);
  return (yield* select(ownerWebhookNotices, "owner_id = ? AND event = ?", ownerId, event)).length > 0;
}

function noticeView(row: Row<typeof ownerWebhookNotices>) {
  return {
    id: row.id,
    kind: row.kind,
    agentName: row.agentName,
    subject: row.subject,
    status: row.status,
    attempts: Number(row.attempts),
    createdAt: iso(row.createdAt),
    nextAttemptAt: row.status === "QUEUED" ? iso(row.nextAttemptAt) : null,
    deliveredAt: isoOrNull(row.deliveredAt),
    httpStatus: row.httpStatus === null ? null : Number(row.httpStatus),
    error: row.error,
  };
}

/** The owner's latest notices sent (or being sent) to the webhook, newest first. */
export function* latestNotices(ownerId: string, limit: number): Op<ReturnType<typeof noticeView>[]> {
  return (yield* select(ownerWebhookNotices, "owner_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", ownerId, limit)).map(noticeView);
}
