// queueMail(): the step a feature yields inside its own write op to send a message once that op has
// committed. The message is a row of the outbox written in the op's transaction, so it exists if and
// only if the op committed; the dispatcher sends it afterwards, never inside a transaction.
import { clock } from "../clock";
import { config } from "../config";
import { afterCommit, insertNew, type Op } from "../db";
import { isMailbox } from "../email";
import { invalid } from "../errors";
import { sha256Hex, uuid } from "../ids";
import { wakeMailer } from "./dispatcher";
import { mailOutbox } from "./schema";

export const MAX_SUBJECT_LENGTH = 200;
/** A message's size is bounded: its text, and its HTML when it has one. */
export const MAX_TEXT_LENGTH = 100_000;
export const MAX_HTML_LENGTH = 200_000;
/** Printable ASCII without spaces, at most 200 characters: `owner.claim:<owner id>`. */
const EVENT = /^[\x21-\x7e]{1,200}$/;

export type Mail = {
  /** What causes the message, unique per recipient: queueing the same (event, to) again does nothing. */
  event: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
};

/**
 * The subject as one header line whatever it was made of (an agent's name, say): control characters
 * (CR and LF among them) and Unicode line breaks become spaces, and it is cut to 200 characters.
 */
export function headerLine(text: string): string {
  const line = text.replace(/[\x00-\x1f\x7f\u0085\u2028\u2029]+/g, " ").replace(/ {2,}/g, " ").trim();
  return [...line].slice(0, MAX_SUBJECT_LENGTH).join("");
}

/** The recipient as stored: an address as isMailbox says (else 400), its domain in lower case. */
export function recipient(to: string): string {
  if (!isMailbox(to)) throw invalid("to: expected one e-mail address local@domain (ASCII, no name, no line breaks)");
  const at = to.lastIndexOf("@");
  return to.slice(0, at) + to.slice(at).toLowerCase();
}

/** The Message-ID of (event, recipient): the same for every attempt, so a resend after a crash is recognisable. */
function messageId(event: string, to: string): string {
  return `<${sha256Hex(`${event}\n${to}`).slice(0, 40)}@${config.mail.from.address.split("@")[1]}>`;
}

/** A write op step: queues `mail` (true), or does nothing when (event, to) is already queued or sent (false). */
export function* queueMail(mail: Mail): Op<boolean> {
  const to = recipient(mail.to);
  const subject = headerLine(mail.subject);
  if (!EVENT.test(mail.event)) throw invalid("event: expected 1 to 200 printable ASCII characters without spaces");
  if (!subject) throw invalid("subject: expected some text");
  if (mail.text.length > MAX_TEXT_LENGTH || (mail.html?.length ?? 0) > MAX_HTML_LENGTH) {
    throw invalid(`a message holds at most ${MAX_TEXT_LENGTH} characters of text and ${MAX_HTML_LENGTH} of HTML`);
  }
  const now = clock.nowMs();
  const queued = yield* insertNew(
    mailOutbox,
    {
      id: uuid(),
      event: mail.event,
      recipient: to,
      subject,
      bodyText: mail.text,
      bodyHtml: mail.html ?? null,
      messageId: messageId(mail.event, to),
      status: "QUEUED",
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
    },
    ["event", "recipient"],
  );
  if (queued) yield* afterCommit(wakeMailer);
  return queued !== null;
}
