import { t } from "elysia";
import { Uuid } from "../http/models";
import { Enum, Int, MaybeTimestamp, Model, Nullable, NullableEnum, Page, Timestamp } from "../http/responses";

export const MAIL_STATUSES = ["QUEUED", "SENT", "FAILED"] as const;

export const MailMessage = Model(
  {
    id: Uuid,
    event: t.String({ description: "what caused it; one message per event and recipient" }),
    to: t.String({ description: "the recipient's address" }),
    subject: t.String(),
    status: Enum(MAIL_STATUSES, { description: "QUEUED (waiting for its next attempt, or being sent), SENT, FAILED (not sent within 24 h of queueing: kept, not retried)" }),
    attempts: Int({ minimum: 0, description: "attempts started" }),
    createdAt: Timestamp("when it was queued (its cause committed)"),
    nextAttemptAt: MaybeTimestamp("QUEUED: the earliest time of its next attempt; null otherwise"),
    sentAt: MaybeTimestamp("when the mail server accepted it, or its file was written"),
    error: Nullable(t.String(), { description: "why the last attempt failed" }),
    via: NullableEnum(["smtp", "outbox"], { description: "where it went: the SMTP_URL server, or the outbox folder; null until sent" }),
    file: Nullable(t.String(), { description: "its file in the outbox folder (via outbox)" }),
    messageId: t.String({ description: "its Message-ID header, the same on every attempt: a resend after a crash carries the same one" }),
  },
  {
    description: "A message of the mail outbox",
    examples: [
      {
        id: "0198f3c4-2d3e-7f4a-8b5c-6d7e8f9a0b1c",
        event: "mail.test:check-1",
        to: "ops@example.com",
        subject: "agentbank: test message",
        status: "SENT",
        attempts: 1,
        createdAt: "2025-06-01T12:00:00.000Z",
        nextAttemptAt: null,
        sentAt: "2025-06-01T12:00:00.250Z",
        error: null,
        via: "outbox",
        file: "2025-06-01T12-00-00-000Z_0198f3c4-2d3e-7f4a-8b5c-6d7e8f9a0b1c.eml",
        messageId: "<5c1f0e6a2b9d4c8e7f3a1b0c9d8e7f6a5b4c3d2e@localhost>",
      },
    ],
  },
);

export const MailPage = Page(MailMessage, "A page of the mail outbox, newest first");
