// Mail as a test sees it: a real SMTP server in-process (smtp-server, the nodemailer project's own) that
// records every message it accepts, parsed with mailparser; and the messages an agentbank without
// SMTP_URL wrote into its outbox folder.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import type { TestServer } from "./server";

export type Received = { envelope: { from: string; to: string[] }; user: string | null; mail: ParsedMail };

/** A TCP port nothing listens on now (the SMTP server can start on it later). */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/**
 * An SMTP server on 127.0.0.1 (no TLS). With `credentials`, it takes only that user and password.
 * `stall`: it accepts connections and never greets them (a send hangs there); `stalled` counts those.
 * Not listening until `listen()`: a mail server that is down.
 */
export function smtpReceiver(options: { port?: number; credentials?: { user: string; pass: string } } = {}) {
  const port = options.port ?? freePort();
  const received: Received[] = [];
  const state = { stall: false, stalled: 0, listening: false };
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", ...(options.credentials ? [] : ["AUTH"])],
    authOptional: !options.credentials,
    allowInsecureAuth: true,
    logger: false,
    onConnect(_session, callback) {
      if (!state.stall) return callback();
      state.stalled += 1;
    },
    onAuth(auth, _session, callback) {
      const { user, pass } = options.credentials!;
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error("535 authentication failed"));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((rcpt) => rcpt.address) };
          received.push({ envelope, user: (session.user as string | undefined) ?? null, mail });
          callback();
        },
        (error) => callback(error),
      );
    },
  });
  return {
    port,
    received,
    state,
    /** SMTP_URL of this server, with the credentials when it takes some. */
    url: options.credentials
      ? `smtp://${encodeURIComponent(options.credentials.user)}:${encodeURIComponent(options.credentials.pass)}@127.0.0.1:${port}`
      : `smtp://127.0.0.1:${port}`,
    /** The messages received with this Message-ID. */
    withId: (messageId: string) => received.filter((entry) => entry.mail.messageId === messageId),
    listen: () =>
      new Promise<void>((resolve, reject) => {
        server.server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          state.listening = true;
          resolve();
        });
      }),
    close: () => new Promise<void>((resolve) => (state.listening ? server.close(() => resolve()) : resolve())),
  };
}

/** The outbox folder of a test server without SMTP_URL: outbox/ in its data folder. */
export const outboxFolder = (server: TestServer) => join(dirname(server.databasePath), "outbox");

/** Every file of the outbox folder (hidden ones too: a temporary file left behind would show), sorted. */
export function outboxFiles(server: TestServer): string[] {
  try {
    return readdirSync(outboxFolder(server)).sort();
  } catch {
    return [];
  }
}

/** One .eml file of the outbox, parsed. */
export const parseOutboxFile = (server: TestServer, name: string) => simpleParser(readFileSync(join(outboxFolder(server), name)));
