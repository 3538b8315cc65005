// The operator's view of the mail outbox, and the test message an operator sends to check the settings.
import { iso, isoOrNull } from "../clock";
import { narrowing, newestFirst, select, type PageWindow, type Op, type Row } from "../db";
import { uuid } from "../ids";
import { queueMail, recipient } from "./queue";
import { mailOutbox, type MailStatus } from "./schema";

type Mail = Row<typeof mailOutbox>;

export function mailView(row: Mail) {
  const via = row.deliveredTo === null ? null : row.deliveredTo === "smtp" ? ("smtp" as const) : ("outbox" as const);
  return {
    id: row.id,
    event: row.event,
    to: row.recipient,
    subject: row.subject,
    status: row.status,
    attempts: Number(row.attempts),
    createdAt: iso(row.createdAt),
    nextAttemptAt: row.status === "QUEUED" ? iso(row.nextAttemptAt) : null,
    sentAt: isoOrNull(row.sentAt),
    error: row.error,
    via,
    file: via === "outbox" ? row.deliveredTo : null,
    messageId: row.messageId,
  };
}

/** Every message, newest first; `status` and `to` narrow the list (the operator may page through all of it). */
export function mailList(filter: { status?: MailStatus; to?: string }, window: PageWindow) {
  const narrow = narrowing({ "status = ?": filter.status || undefined, "recipient = ?": filter.to ? recipient(filter.to) : undefined });
  return newestFirst({ table: mailOutbox, scope: { where: "1 = 1", params: [] }, narrow }, window, mailView);
}

/**
 * A write op: queues the operator's test message to `to` (event `mail.test:<reference>`, a new one
 * without a reference). The same reference and address again queue nothing: the answer is the message
 * queued the first time.
 */
export function* queueTestMail(to: string, reference: string | undefined): Op<ReturnType<typeof mailView>> {
  const event = `mail.test:${reference ?? uuid()}`;
  yield* queueMail({
    event,
    to,
    subject: "agentbank: test message",
    text: "This is a test message from agentbank, queued by its operator (POST /admin/mail/test) to check how mail leaves it.\n",
  });
  const [row] = yield* select(mailOutbox, "event = ? AND recipient = ?", event, recipient(to));
  return mailView(row!);
}
