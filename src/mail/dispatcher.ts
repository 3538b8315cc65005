// Sends queued mail after its commit, outside every transaction, as the webhook outbox is sent (the loop
// of src/dispatch.ts): woken after each commit that queued a message, and every 5 s by a job
// (the backstop: retries, and what an instance that died left). An instance claims the messages it
// sends (claimed_at, FOR UPDATE SKIP LOCKED on PostgreSQL, so instances sharing the outbox never take
// the same one); an attempt ends within 30 s, so a claim older than a minute belongs to an instance
// that stopped, and is taken again. On SQLite one process owns the file, so the claims found at start
// are a dead process's and are taken again at once.
//
// At most once per (event, recipient): a message is marked SENT after the server accepted it (or its
// file was written). The one window that cannot be closed is a crash after the server accepted it and
// before it was marked: it is sent again, with the same Message-ID, so the receiving side can tell.
// A failed attempt is retried with back-off (1 min, doubling to 1 h) for 24 h, then FAILED and kept.
import { clock } from "../clock";
import { run, write, type Op, type Row } from "../db";
import { backOff, claimDue, dispatcher } from "../dispatch";
import { logLine } from "../log";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../time";
import { mailOutbox } from "./schema";
import { transport } from "./transport";

type Mail = Row<typeof mailOutbox>;

const MAX_IN_FLIGHT = 8;
const FIRST_RETRY_MS = MINUTE_MS;
const LONGEST_RETRY_MS = HOUR_MS;
/** A message still not sent this long after it was queued is given up on (FAILED) at its next failure. */
export const GIVE_UP_AFTER_MS = DAY_MS;
/** How long a stop waits for the attempts in flight to be recorded. */
const STOP_WAIT_MS = 5_000;

const sender = dispatcher("mail", MAX_IN_FLIGHT, (limit) => claimDue(mailOutbox, limit), attempt);

/** Sends what is due, up to MAX_IN_FLIGHT at a time; called after every commit that queued a message, and by the job. */
export const wakeMailer = (): void => sender.wake();

/** Claims nothing more, and waits (a few seconds at most) for the attempts in flight to be recorded. */
export const stopMailer = (): Promise<void> => sender.stop(STOP_WAIT_MS);

/**
 * A write op: what the attempt came to. A failure is recorded only while the claim is still this
 * attempt's. Once SENT or FAILED the body is dropped: it may hold a single-use link (a claim, a
 * sign-in), which must not outlive its message in the database or its backups.
 */
function* record(mail: Mail, outcome: { deliveredTo: string } | { error: string; giveUp: boolean }): Op<void> {
  const now = clock.nowMs();
  if ("deliveredTo" in outcome) {
    yield* run("UPDATE mail_outbox SET status = 'SENT', sent_at = ?, delivered_to = ?, claimed_at = NULL, error = NULL, body_text = '', body_html = NULL WHERE id = ? AND status = 'QUEUED'", now, outcome.deliveredTo, mail.id);
  } else if (outcome.giveUp) {
    yield* run("UPDATE mail_outbox SET status = 'FAILED', claimed_at = NULL, error = ?, body_text = '', body_html = NULL WHERE id = ? AND status = 'QUEUED' AND claimed_at = ?", outcome.error, mail.id, mail.claimedAt);
  } else {
    const next = now + backOff(Number(mail.attempts), FIRST_RETRY_MS, LONGEST_RETRY_MS);
    yield* run("UPDATE mail_outbox SET next_attempt_at = ?, claimed_at = NULL, error = ? WHERE id = ? AND status = 'QUEUED' AND claimed_at = ?", next, outcome.error, mail.id, mail.claimedAt);
  }
}

async function attempt(mail: Mail): Promise<void> {
  let outcome: Parameters<typeof record>[1];
  try {
    outcome = { deliveredTo: await transport()(mail) };
  } catch (failure) {
    outcome = { error: String((failure as Error).message ?? failure).slice(0, 300), giveUp: clock.nowMs() - Number(mail.createdAt) >= GIVE_UP_AFTER_MS };
    logLine({ level: "warn", msg: outcome.giveUp ? "mail given up" : "mail not sent, will retry", mailId: mail.id, event: mail.event, attempts: Number(mail.attempts), error: outcome.error });
  }
  try {
    await write(() => record(mail, outcome));
  } catch (error) {
    // Sent but not recorded: the claim ages and the message goes again, with the same Message-ID.
    logLine({ level: "warn", msg: "mail attempt not recorded", mailId: mail.id, error: String((error as Error).message ?? error) });
  }
}
