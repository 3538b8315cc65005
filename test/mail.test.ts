// Mail (issue 33): a message queued in a write op leaves after its commit, at most once per (event,
// recipient) — through SMTP_URL's server, or as one .eml file in the outbox folder when it is unset. A
// mail server that is down delays messages and loses none; a crash between the commit and the send
// sends the message after the restart, once; two instances on PostgreSQL send each message once.
// Driven through the operator's test message (POST /admin/mail/test) and watched in GET /admin/mail.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { headerLine, recipient } from "../src/mail/queue";
import { expectLedgerOk } from "./helpers/ledger";
import { outboxFiles, parseOutboxFile, smtpReceiver } from "./helpers/mail";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");

type MailItem = { id: string; event: string; to: string; status: string; attempts: number; createdAt: string; nextAttemptAt: string | null; sentAt: string | null; error: string | null; via: string | null; file: string | null; messageId: string };

const queueTest = (server: TestServer, to: string, reference?: string) => server.admin("POST", "/admin/mail/test", reference === undefined ? { to } : { to, reference });

async function listTo(server: TestServer, to: string): Promise<MailItem[]> {
  const reply = await server.admin("GET", `/admin/mail?limit=100&to=${encodeURIComponent(to)}`);
  expect(reply.status).toBe(200);
  return reply.body.data;
}

/** The message `id` once `ready` says so. */
async function mailWhen(server: TestServer, to: string, id: string, ready: (mail: MailItem) => boolean, ms = 10_000): Promise<MailItem> {
  return waitFor(async () => {
    const mail = (await listTo(server, to)).find((item) => item.id === id);
    return mail && ready(mail) ? mail : undefined;
  }, ms);
}
const sent = (mail: MailItem) => mail.status === "SENT";

describe("without SMTP_URL: the outbox folder", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  test("each message is one .eml file in <data folder>/outbox, named by time, with the right headers; queued again, nothing more", async () => {
    const to = "ops@example.com";
    const first = await queueTest(server, to, "first");
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ event: "mail.test:first", to, status: "QUEUED", attempts: 0, sentAt: null, via: null, file: null });
    const delivered = await mailWhen(server, to, first.body.id, sent);
    expect(delivered).toMatchObject({ attempts: 1, error: null, via: "outbox", nextAttemptAt: null, messageId: first.body.messageId });
    expect(delivered.file).toBe(`${first.body.createdAt.replace(/[:.]/g, "-")}_${first.body.id}.eml`);
    expect(outboxFiles(server)).toEqual([delivered.file!]);

    const mail = await parseOutboxFile(server, delivered.file!);
    expect(mail.messageId).toBe(first.body.messageId);
    expect(mail.from?.value).toEqual([{ name: "agentbank", address: "agentbank@localhost" }]);
    expect((mail.to as { value: unknown[] }).value).toEqual([{ name: "", address: to }]);
    expect(mail.subject).toBe("agentbank: test message");
    expect(mail.text).toContain("test message from agentbank");
    expect(mail.headers.get("auto-submitted")).toBe("auto-generated");
    // The Date header counts whole seconds.
    expect(mail.date?.getTime()).toBe(Math.floor(Date.parse(first.body.createdAt) / 1000) * 1000);

    // The same (event, recipient) again: the same message, no second file.
    const again = await queueTest(server, to, "first");
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: first.body.id, status: "SENT" });
    const second = await queueTest(server, to, "second");
    const secondSent = await mailWhen(server, to, second.body.id, sent);
    expect(secondSent.messageId).not.toBe(first.body.messageId);
    await Bun.sleep(300);
    expect(outboxFiles(server)).toEqual([delivered.file!, secondSent.file!]);
    expect((await listTo(server, to)).map((item) => item.id)).toEqual([second.body.id, first.body.id]);
  }, 30_000);

  test("a line break, a second address or a display name in the recipient is refused with 400, and nothing is queued", async () => {
    const before = (await server.admin("GET", "/admin/mail")).body.pagination.total;
    for (const to of ["victim@example.com\r\nBcc: thief@example.com", "victim@example.com\nSubject: pay now", "victim@example.com, thief@example.com", "Victim <victim@example.com>", "victim@example.com ", "", "x".repeat(250) + "@example.com"]) {
      const reply = await queueTest(server, to);
      expect({ to, status: reply.status, error: reply.body?.error }).toEqual({ to, status: 400, error: "VALIDATION_ERROR" });
    }
    expect((await server.admin("POST", "/admin/mail/test", { to: "ops@example.com", cc: "thief@example.com" })).status).toBe(400);
    expect((await server.admin("GET", "/admin/mail?to=" + encodeURIComponent("a@b.c\r\nX: y"))).status).toBe(400);
    expect((await server.admin("GET", "/admin/mail")).body.pagination.total).toBe(before);
  });

  test("only the operator sees the outbox or queues a test message", async () => {
    const agent = await server.register();
    for (const key of [undefined, agent.apiKey, agent.ownerKey, "wrong"]) {
      expect((await server.request("GET", "/admin/mail", { key })).status).toBe(401);
      expect((await server.request("POST", "/admin/mail/test", { key, body: { to: "ops@example.com" } })).status).toBe(401);
    }
    const failed = (await server.admin("GET", "/admin/mail?status=FAILED")).body;
    expect(failed.pagination.total).toBe(0);
    await expectLedgerOk(server);
  });
});

describe("with SMTP_URL", () => {
  const credentials = { user: "mailer", pass: "p@ss word:/" };
  const smtp = smtpReceiver({ credentials });
  let server: TestServer;
  beforeAll(async () => {
    // The mail server is down until the first test starts it.
    server = await startServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: '"Agent Bank" <bank@example.org>' } });
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  test("a mail server that is down delays the message and loses none: it is sent once the server is back", async () => {
    const to = "down@example.com";
    const queued = (await queueTest(server, to)).body;
    const failedOnce = await mailWhen(server, to, queued.id, (mail) => mail.attempts === 1 && mail.error !== null);
    expect(failedOnce).toMatchObject({ status: "QUEUED", via: null });
    expect(failedOnce.error).toContain("ECONNREFUSED");
    // The back-off: a minute after the first failure, then two.
    expect(Date.parse(failedOnce.nextAttemptAt!) - Date.parse(failedOnce.createdAt)).toBeGreaterThanOrEqual(60_000);
    await server.advance(61);
    const failedTwice = await mailWhen(server, to, queued.id, (mail) => mail.attempts === 2 && mail.nextAttemptAt !== failedOnce.nextAttemptAt);
    expect(Date.parse(failedTwice.nextAttemptAt!) - Date.parse(failedOnce.nextAttemptAt!)).toBeGreaterThanOrEqual(120_000);
    expect(smtp.received).toEqual([]);

    await smtp.listen();
    await server.advance(121);
    const delivered = await mailWhen(server, to, queued.id, sent);
    expect(delivered).toMatchObject({ attempts: 3, via: "smtp", file: null, error: null });
    expect(smtp.withId(queued.messageId)).toHaveLength(1);
  }, 30_000);

  test("sent through SMTP with its credentials, its envelope naming the one recipient, and its headers; queued again, nothing more", async () => {
    const queued = (await queueTest(server, "Owner@Example.COM", "smtp-once")).body;
    expect(queued.to).toBe("Owner@example.com");
    await mailWhen(server, "Owner@example.com", queued.id, sent);
    const [received] = smtp.withId(queued.messageId);
    expect(received!.user).toBe(credentials.user);
    expect(received!.envelope).toEqual({ from: "bank@example.org", to: ["Owner@example.com"] });
    expect(received!.mail.from?.value).toEqual([{ name: "Agent Bank", address: "bank@example.org" }]);
    expect(received!.mail.subject).toBe("agentbank: test message");
    expect(received!.mail.headers.get("auto-submitted")).toBe("auto-generated");
    expect(queued.messageId).toMatch(/^<[0-9a-f]{40}@example\.org>$/);

    expect((await queueTest(server, "Owner@example.com", "smtp-once")).body.id).toBe(queued.id);
    await server.advance(3600);
    expect(smtp.withId(queued.messageId)).toHaveLength(1);
  }, 30_000);

  test("a crash between the commit and the send: the message leaves after the restart, once", async () => {
    const to = "crash@example.com";
    smtp.state.stall = true;
    const queued = (await queueTest(server, to)).body;
    // The attempt has started (claimed, connected, waiting for the greeting) when the process dies.
    await waitFor(() => (smtp.state.stalled > 0 ? true : undefined));
    await server.restart("SIGKILL");
    smtp.state.stall = false;
    // SQLite takes the dead process's claim at start; on PostgreSQL it is taken once it is a minute old.
    const delivered = await mailWhen(server, to, queued.id, sent, TEST_POSTGRES ? 100_000 : 10_000);
    expect(delivered.attempts).toBe(2);
    expect(smtp.withId(queued.messageId)).toHaveLength(1);
    await expectLedgerOk(server);
  }, 150_000);
});

describe.skipIf(TEST_POSTGRES === undefined)("two instances on one PostgreSQL", () => {
  const smtp = smtpReceiver();
  let instances: TestServer[] = [];
  beforeAll(async () => {
    await smtp.listen();
    const first = await startServer({ env: { SMTP_URL: smtp.url } });
    instances = [first, await startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ADMIN_API_KEY: ADMIN_KEY, SMTP_URL: smtp.url } })];
  }, 60_000);
  afterAll(async () => {
    await instances[1]?.close();
    await instances[0]?.close();
    await smtp.close();
  });

  test("each message is sent once, whichever instance queued it; the same one queued on both at once is one message", async () => {
    const to = "cluster@example.com";
    const replies = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => queueTest(instances[i % 2]!, to)),
      ...Array.from({ length: 10 }, (_, i) => queueTest(instances[i % 2]!, to, `both-${i >> 1}`)),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 202));
    const ids = new Set(replies.map((reply) => reply.body.id as string));
    expect(ids.size).toBe(35);
    await waitFor(async () => {
      const mails = await listTo(instances[0]!, to);
      return mails.length === 35 && mails.every(sent) ? true : undefined;
    }, 30_000);
    const mails = await listTo(instances[1]!, to);
    for (const mail of mails) expect({ id: mail.id, received: smtp.withId(mail.messageId).length }).toEqual({ id: mail.id, received: 1 });
    // A job run on each instance finds nothing more to send.
    await instances[1]!.advance(3600);
    await instances[0]!.advance(3600);
    await Bun.sleep(300);
    expect(smtp.received).toHaveLength(35);
    await expectLedgerOk(instances[0]!);
  }, 60_000);
});

test("outside text in a header stays one line: a subject's control characters and line breaks become spaces; a recipient is one plain address", () => {
  expect(headerLine("Payment held\r\nBcc: thief@example.com")).toBe("Payment held Bcc: thief@example.com");
  expect(headerLine("a\u2028b\u0085c\td\u0000e\u007f")).toBe("a b c d e");
  expect([...headerLine("é".repeat(500))]).toHaveLength(200);
  expect(recipient("Ada.Lovelace+bank@Example.COM")).toBe("Ada.Lovelace+bank@example.com");
  for (const bad of ["ada@example.com\r\nBcc: thief@example.com", "Ada <ada@example.com>", "ada@example.com,thief@example.com", "ada@", "@example.com", "ada@exa mple.com", "ädä@example.com"]) {
    expect(() => recipient(bad)).toThrow("to: expected one e-mail address");
  }
});

describe("configuration", () => {
  const start = (env: Record<string, string>) => {
    const result = Bun.spawnSync(["bun", "run", MAIN], { env: { PATH: process.env.PATH ?? "", DATABASE_PATH: join(tmpdir(), `mail-config-${crypto.randomUUID()}`, "a.db"), PORT: "0", ...env }, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };

  test("a bad SMTP_URL or MAIL_FROM stops the start with one JSON line naming it (and no password)", () => {
    for (const [env, names] of [
      [{ SMTP_URL: "http://mail.example.com" }, "SMTP_URL"],
      [{ SMTP_URL: "smtp://user:hunter2@mail.example.com/inbox" }, "SMTP_URL"],
      [{ SMTP_URL: "smtp://user:hunter2@mail.example.com:99999" }, "SMTP_URL"],
      [{ SMTP_URL: "smtps://mail.example.com?tls=off" }, "SMTP_URL"],
      [{ MAIL_FROM: "bank@example.org\r\nBcc: thief@example.com" }, "MAIL_FROM"],
      [{ MAIL_FROM: "Bank <not an address>" }, "MAIL_FROM"],
    ] as const) {
      const { code, stdout, stderr } = start(env);
      expect({ env, code, stdout }).toEqual({ env, code: 1, stdout: "" });
      expect(stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(JSON.parse(stderr)).toEqual({ level: "error", t: expect.any(String), msg: expect.stringContaining(`configuration error: ${names}: expected`) });
      expect(stderr).not.toContain("hunter2");
    }
  }, 60_000);
});
