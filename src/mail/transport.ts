// How a message leaves. nodemailer builds it (RFC 5322) either way: with SMTP_URL its SMTP transport
// hands it to that server; without, its stream transport gives the bytes, written as one .eml file into
// the outbox folder. Both take only the strings given here (no file or URL is ever read into a
// message), and the envelope names the one recipient, so nothing in a header can add another.
import { link, mkdir, open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { createTransport, type SendMailOptions } from "nodemailer";
import { iso } from "../clock";
import { config } from "../config";
import { uuid } from "../ids";
import type { Row } from "../db";
import type { mailOutbox } from "./schema";

type Mail = Row<typeof mailOutbox>;

/** The longest one attempt may take, start to end (connect, greeting, every reply): well under the reclaim age. */
export const ATTEMPT_DEADLINE_MS = 30_000;

/** Sends `mail`; answers where it went (`smtp`, or the file's name), or throws why it did not. */
export type Transport = (mail: Mail) => Promise<string>;

const GUARDS = { disableFileAccess: true, disableUrlAccess: true };

function message(mail: Mail): SendMailOptions {
  const { from } = config.mail;
  return {
    from: { name: from.name, address: from.address },
    to: { name: "", address: mail.recipient },
    envelope: { from: from.address, to: [mail.recipient] },
    subject: mail.subject,
    text: mail.bodyText,
    ...(mail.bodyHtml === null ? {} : { html: mail.bodyHtml }),
    messageId: mail.messageId,
    date: new Date(Number(mail.createdAt)),
    // RFC 3834: sent by a program, so auto-responders do not answer it.
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

function smtpTransport(server: NonNullable<typeof config.mail.smtp>): Transport {
  const transporter = createTransport({
    ...server,
    ...GUARDS,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    dnsTimeout: 10_000,
  });
  return async (mail) => {
    await transporter.sendMail({ ...message(mail), signal: AbortSignal.timeout(ATTEMPT_DEADLINE_MS) });
    return "smtp";
  };
}

/** Its name in the outbox folder: queueing time first, so the names sort by time; the id makes it its own. */
export const outboxFileName = (mail: Mail) => `${iso(mail.createdAt).replace(/[:.]/g, "-")}_${mail.id}.eml`;

/**
 * Each message is written whole to a hidden temporary file, flushed, then linked under its own name,
 * which never replaces a file: if the name is taken, an earlier attempt wrote this very message (and
 * stopped before recording it), so it is not written twice. Then the folder is flushed, so a message
 * recorded as sent is on disk.
 */
function outboxTransport(folder: string): Transport {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: "windows", ...GUARDS });
  return async (mail) => {
    const { message: bytes } = await composer.sendMail(message(mail));
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const name = outboxFileName(mail);
    const temporary = join(folder, `.${name}.${uuid()}.tmp`);
    const file = await open(temporary, "wx", 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await link(temporary, join(folder, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      await unlink(temporary);
    }
    const directory = await open(folder, "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return name;
  };
}

let chosen: Transport | null = null;

/** SMTP_URL's server, else the outbox folder (chosen once, from the configuration in force). */
export function transport(): Transport {
  chosen ??= config.mail.smtp ? smtpTransport(config.mail.smtp) : outboxTransport(config.mail.outboxDir);
  return chosen;
}
