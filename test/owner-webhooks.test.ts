// The owner's webhook (issue 33, "Owners in the loop"): an owner account sets a URL and a format on the
// console's Notifications page, gets its signing secret once, and chooses per kind of notice whether
// e-mail and the webhook tell them. Every format (Standard Webhooks JSON, Slack, Discord, ntfy) arrives
// signed, and a real receiver verifies each with the `standardwebhooks` package; a receiver that fails
// is tried again with back-off for 24 h. No feature tells owners yet, so the page's "send a test" queues
// the notices (the same queueOwnerWebhook the notices will go through).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { claimByMail, formsOf, getPage, isSignIn, postForm, signInByMail, type ConsolePage } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

setDefaultTimeout(30_000);

type Received = { path: string; headers: Record<string, string>; body: string };

/** A receiver: records every POST; /down/… answers 500, /flaky/… answers 500 to its first request only. */
function startReceiver() {
  const received: Received[] = [];
  const seen = new Set<string>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      received.push({ path, headers: Object.fromEntries(request.headers), body: await request.text() });
      if (path.startsWith("/down/")) return new Response("down", { status: 500 });
      if (path.startsWith("/flaky/") && !seen.has(path)) {
        seen.add(path);
        return new Response("not yet", { status: 503 });
      }
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

let server: TestServer;
let receiver: ReturnType<typeof startReceiver>;
beforeAll(async () => {
  server = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  receiver = startReceiver();
});
afterAll(async () => {
  receiver.stop();
  await server.close();
});

const PAGE = "/console/notifications";
const HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"];
const signed = (delivery: Received) => Object.fromEntries(HEADERS.map((name) => [name, delivery.headers[name]!]));

/** A new agent on `on`, claimed by a new owner through the mailed link: the owner's e-mail, session and agent. */
async function newOwner(on: TestServer = server, name = "notified-agent"): Promise<{ email: string; cookie: string; agentId: string }> {
  const email = `owner-${crypto.randomUUID()}@example.com`;
  const registered = await on.request("POST", "/agents/register", { body: { name, ownerName: "Ada", ownerEmail: email } });
  expect(registered.status).toBe(201);
  return { email, cookie: await claimByMail(on, email), agentId: registered.body.agent.id as string };
}

/** Posts the page's form `action` as a browser would, with `changes` to its fields (undefined: left out). */
async function submit(cookie: string, action: string, changes: Record<string, string | undefined> = {}, on: TestServer = server): Promise<ConsolePage> {
  const form = formsOf((await getPage(on, PAGE, cookie)).html).find((candidate) => candidate.action === action);
  if (!form) throw new Error(`no form ${action} on the page`);
  const fields = form.fields.filter(([name]) => !(name in changes));
  for (const [name, value] of Object.entries(changes)) if (value !== undefined) fields.push([name, value]);
  return postForm(on, action, fields, cookie);
}

const secretIn = (page: ConsolePage) => /id="new-secret">(whsec_[^<]+)</.exec(page.html)?.[1];
const messageIn = (page: ConsolePage) => /id="notifications-message"[^>]*>([^<]*)</.exec(page.html)?.[1]?.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");

async function setWebhook(cookie: string, url: string, format = "standard"): Promise<ConsolePage> {
  return submit(cookie, "/console/notifications/webhook", { url, format });
}

/** The deliveries to `path` (one notice may be tried more than once). */
const to = (path: string) => receiver.received.filter((delivery) => delivery.path === path);
const sendTest = (cookie: string, kind = "approval.held") => submit(cookie, "/console/notifications/test", { kind });

/** The newest notice the page lists: its status, attempts, last answer and next attempt (an ISO time). */
async function newestNotice(cookie: string) {
  const page = await getPage(server, PAGE, cookie);
  if (isSignIn(page)) throw new Error("the session ended");
  const section = page.html.slice(page.html.indexOf("Latest notices to the webhook"));
  const row = /<tr><td data-label="When">[\s\S]*?<\/tr>/.exec(section)?.[0] ?? "";
  const cell = (label: string) => new RegExp(`data-label="${label}"[^>]*>([\\s\\S]*?)</td>`).exec(row)?.[1] ?? "";
  return { status: /class="status (\w+)"/.exec(row)?.[1], attempts: Number(cell("Attempts")), answer: cell("Last answer"), when: /datetime="([^"]+)"/.exec(cell("When"))?.[1] ?? null, next: /datetime="([^"]+)"/.exec(cell("Next attempt"))?.[1] ?? null };
}

describe("setting the webhook", () => {
  test("an owner account sets a URL and a format; the secret is shown once, kept across changes, and replaced by a rotation", async () => {
    const { cookie } = await newOwner();
    const empty = await getPage(server, PAGE, cookie);
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('href="/console/notifications" aria-current="page"');
    expect(formsOf(empty.html).map((form) => form.action)).toEqual(expect.arrayContaining(["/console/notifications/webhook", "/console/notifications/channels"]));
    expect(empty.html).not.toContain('action="/console/notifications/test"');

    const saved = await setWebhook(cookie, `${receiver.url}/hook/${crypto.randomUUID()}`);
    expect(saved.status).toBe(200);
    const secret = secretIn(saved)!;
    expect(secret).toMatch(/^whsec_/);
    expect(secretIn(await getPage(server, PAGE, cookie))).toBeUndefined();

    const changed = await setWebhook(cookie, `${receiver.url}/hook/${crypto.randomUUID()}`, "slack");
    expect(changed.status).toBe(200);
    expect(secretIn(changed)).toBeUndefined();
    expect(messageIn(changed)).toContain("same as before");

    const rotation = await getPage(server, "/console/notifications/rotate", cookie);
    expect(rotation.html).toContain("Yes, replace the signing secret");
    const form = formsOf(rotation.html).find((candidate) => candidate.action === "/console/notifications/rotate")!;
    const rotated = await postForm(server, form.action, form.fields, cookie);
    expect(rotated.status).toBe(200);
    expect(secretIn(rotated)).toMatch(/^whsec_/);
    expect(secretIn(rotated)).not.toBe(secret);
  });

  test("bad input is refused with 400 on the page and nothing is saved", async () => {
    const { cookie } = await newOwner();
    const url = `${receiver.url}/hook/${crypto.randomUUID()}`;
    expect((await setWebhook(cookie, url)).status).toBe(200);
    const refusals: [Record<string, string | undefined>, string][] = [
      [{ url: "ftp://example.com/hook", format: "standard" }, "only http and https"],
      [{ url: "http://user:pass@127.0.0.1/hook", format: "standard" }, "credentials"],
      [{ url: "not a url", format: "standard" }, "not a valid URL"],
      [{ url: `${receiver.url}/${"x".repeat(2_000)}`, format: "standard" }, "at most 2000 characters"],
      [{ url: `${receiver.url}/hook`, format: "teams" }, "format"],
      [{ url: `${receiver.url}/hook`, format: undefined }, "format"],
      [{ url: `${receiver.url}/`, format: "ntfy" }, "ends in its topic"],
      [{ url: `${receiver.url}/a topic`, format: "ntfy" }, "ends in its topic"],
    ];
    for (const [fields, words] of refusals) {
      const refused = await submit(cookie, "/console/notifications/webhook", fields);
      expect({ status: refused.status, says: messageIn(refused)?.includes(words) }).toEqual({ status: 400, says: true });
    }
    const page = await getPage(server, PAGE, cookie);
    const form = formsOf(page.html).find((candidate) => candidate.action === "/console/notifications/webhook")!;
    expect(Object.fromEntries(form.fields)).toMatchObject({ url, format: "standard" });

    // A field of no form of the page is refused too, and nothing changes.
    const extra = await submit(cookie, "/console/notifications/channels", { "email.approval.held": undefined, "sms.approval.held": "on" });
    expect(extra.status).toBe(400);
    expect(messageIn(extra)).toContain('"sms.approval.held" is not a field of this form');
    const channels = formsOf((await getPage(server, PAGE, cookie)).html).find((candidate) => candidate.action === "/console/notifications/channels")!;
    expect(channels.fields.map(([name]) => name)).toContain("email.approval.held");
  });

  test("the outbound guard: without WEBHOOK_ALLOW_PRIVATE_NETWORKS a loopback or private URL is refused and nothing is saved", async () => {
    const guarded = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false" } });
    try {
      const { cookie } = await newOwner(guarded);
      for (const url of [`${receiver.url}/hook`, "http://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data", "http://[::1]/hook"]) {
        const refused = await submit(cookie, "/console/notifications/webhook", { url, format: "standard" }, guarded);
        expect(refused.status).toBe(400);
        expect(refused.html).toContain("non-public address");
      }
      const page = await getPage(guarded, PAGE, cookie);
      expect(page.html).not.toContain('action="/console/notifications/test"');
      expect(page.html).not.toContain("/console/notifications/rotate");
    } finally {
      await guarded.close();
    }
  });
});

describe("deliveries", () => {
  test("every format arrives signed: standardwebhooks verifies each with the secret, and each body is the format's", async () => {
    const { cookie, agentId } = await newOwner(server, "format-agent");
    const id = crypto.randomUUID();
    const secret = secretIn(await setWebhook(cookie, `${receiver.url}/standard/${id}`))!;
    const verify = (delivery: Received) => new Webhook(secret).verify(delivery.body, signed(delivery));
    const ids = new Set<string>();

    expect(messageIn(await sendTest(cookie))).toContain("on its way");
    const standard = await waitFor(() => to(`/standard/${id}`)[0]);
    const payload = JSON.parse(standard.body);
    expect(payload).toEqual({
      type: "approval.held",
      timestamp: expect.any(String),
      data: {
        agentId,
        agentName: "format-agent",
        subject: "Test: An outflow waits for your approval",
        text: "This is a test notice from agentbank, sent from the console's Notifications page. Nothing happened to “format-agent”.",
        link: `${server.url}/console/notifications`,
        data: { test: true },
      },
    });
    expect(verify(standard)).toEqual(payload);
    expect(() => new Webhook(secret).verify(`${standard.body} `, signed(standard))).toThrow();
    expect(standard.headers["content-type"]).toContain("application/json");
    ids.add(standard.headers["webhook-id"]!);

    expect((await setWebhook(cookie, `${receiver.url}/slack/${id}`, "slack")).status).toBe(200);
    await sendTest(cookie, "agent.frozen");
    const slack = await waitFor(() => to(`/slack/${id}`)[0]);
    expect(verify(slack)).toEqual({ text: `*Test: The agent was frozen or unfrozen*\nThis is a test notice from agentbank, sent from the console's Notifications page. Nothing happened to “format-agent”.\n${server.url}/console/notifications` });
    ids.add(slack.headers["webhook-id"]!);

    expect((await setWebhook(cookie, `${receiver.url}/discord/${id}`, "discord")).status).toBe(200);
    await sendTest(cookie, "key.created");
    const discord = await waitFor(() => to(`/discord/${id}`)[0]);
    expect(verify(discord)).toEqual({
      content: `**Test: A restricted key or an MCP host's access was made for the agent**\nThis is a test notice from agentbank, sent from the console's Notifications page. Nothing happened to “format-agent”.\n${server.url}/console/notifications`,
      allowed_mentions: { parse: [] },
    });
    ids.add(discord.headers["webhook-id"]!);

    // ntfy: the URL names the topic; the JSON goes to the server's root, the topic in it.
    const topic = `alerts-${id.slice(0, 8)}`;
    expect((await setWebhook(cookie, `${receiver.url}/ntfy-${id}/${topic}`, "ntfy")).status).toBe(200);
    await sendTest(cookie, "approval.reminder");
    const ntfy = await waitFor(() => to(`/ntfy-${id}/`)[0]);
    expect(verify(ntfy)).toEqual({
      topic,
      title: "Test: An outflow's approval expires within the hour",
      message: "This is a test notice from agentbank, sent from the console's Notifications page. Nothing happened to “format-agent”.",
      click: `${server.url}/console/notifications`,
    });
    ids.add(ntfy.headers["webhook-id"]!);

    expect(ids.size).toBe(4);
    for (const webhookId of ids) expect(webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(await waitFor(async () => ((await newestNotice(cookie)).status === "DELIVERED" ? true : undefined))).toBe(true);
    await expectLedgerOk(server);
  });

  test("an agent's name cannot ping a chat: Slack's markup is written as entities, Discord's mentions are off", async () => {
    const { cookie } = await newOwner(server, "<!channel> & @everyone");
    const id = crypto.randomUUID();
    await setWebhook(cookie, `${receiver.url}/slack/${id}`, "slack");
    await sendTest(cookie);
    const slack = JSON.parse((await waitFor(() => to(`/slack/${id}`)[0])).body);
    expect(slack.text).toContain("Nothing happened to “&lt;!channel&gt; &amp; @everyone”.");
    expect(slack.text).not.toContain("<!channel>");
    await setWebhook(cookie, `${receiver.url}/discord/${id}`, "discord");
    await sendTest(cookie);
    const discord = JSON.parse((await waitFor(() => to(`/discord/${id}`)[0])).body);
    expect(discord).toMatchObject({ allowed_mentions: { parse: [] } });
    expect(discord.content).toContain("“<!channel> & @everyone”");
  });

  test("a receiver that fails and then recovers gets the notice once: the retry waits its back-off and carries the same webhook-id", async () => {
    const { cookie } = await newOwner();
    const path = `/flaky/${crypto.randomUUID()}`;
    const secret = secretIn(await setWebhook(cookie, `${receiver.url}${path}`))!;
    await sendTest(cookie);
    await waitFor(() => to(path)[0]);
    const failed = await waitFor(async () => {
      const notice = await newestNotice(cookie);
      return notice.answer.includes("503") ? notice : undefined;
    });
    expect(failed).toMatchObject({ status: "QUEUED", attempts: 1 });
    // Not before its back-off (30 s): the job runs, nothing goes.
    await server.advance(10);
    await Bun.sleep(300);
    expect(to(path)).toHaveLength(1);
    await server.advance(25);
    await waitFor(() => to(path)[1]);
    expect(await waitFor(async () => ((await newestNotice(cookie)).status === "DELIVERED" ? newestNotice(cookie) : undefined))).toMatchObject({ attempts: 2 });
    const [first, second] = to(path);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(new Webhook(secret).verify(second!.body, signed(second!))).toEqual(JSON.parse(first!.body));
    // Delivered: nothing more, however long.
    await server.advance(3 * 3600);
    await Bun.sleep(300);
    expect(to(path)).toHaveLength(2);
  });

  test("a receiver that never takes it: tried with back-off (30 s, doubling to 1 h) for 24 h, then FAILED", async () => {
    const owner = await newOwner();
    const path = `/down/${crypto.randomUUID()}`;
    await setWebhook(owner.cookie, `${receiver.url}${path}`);
    await sendTest(owner.cookie);
    /** The notice once its latest attempt is recorded (its next attempt moved on from `seen`, or it was given up). */
    const recorded = (seen: string | null) =>
      waitFor(async () => {
        // Sessions last 12 h of the service's clock: sign in again by a mailed link when one ends.
        const notice = await newestNotice(owner.cookie).catch(async () => newestNotice((owner.cookie = await signInByMail(server, owner.email))));
        return notice.status === "FAILED" || (notice.next !== null && notice.next !== seen && notice.next !== notice.when) ? notice : undefined;
      });
    let notice = await recorded(null);
    expect(notice).toMatchObject({ status: "QUEUED", attempts: 1 });
    // The first retry 30 s after the failure (then 1, 2, 4 … minutes, up to an hour).
    expect((Date.parse(notice.next!) - Date.parse(notice.when!)) / 1000).toBeWithin(30, 35);
    let steps = 0;
    while (notice.status === "QUEUED" && steps < 40) {
      const before = notice.next!;
      await server.advance(3600);
      steps++;
      notice = await recorded(before);
    }
    // Each step is at least the longest back-off: one attempt per hour of the clock until a day has passed.
    expect(steps).toBe(24);
    expect(notice).toMatchObject({ status: "FAILED", attempts: 25, answer: "receiver answered 500" });
    expect(to(path)).toHaveLength(25);
    expect(new Set(to(path).map((delivery) => delivery.headers["webhook-id"])).size).toBe(1);
    await server.advance(3600);
    await Bun.sleep(300);
    expect(to(path)).toHaveLength(25);
  }, 90_000);

  test("a removed webhook: what waited for it is not sent", async () => {
    const { cookie } = await newOwner();
    const path = `/down/${crypto.randomUUID()}`;
    await setWebhook(cookie, `${receiver.url}${path}`);
    await sendTest(cookie);
    await waitFor(() => to(path)[0]);
    await waitFor(async () => ((await newestNotice(cookie)).attempts === 1 && (await newestNotice(cookie)).answer.includes("500") ? true : undefined));
    expect((await submit(cookie, "/console/notifications/webhook/remove")).status).toBe(200);
    await server.advance(60);
    expect(await waitFor(async () => ((await newestNotice(cookie)).status === "SKIPPED" ? true : undefined))).toBe(true);
    expect(to(path)).toHaveLength(1);
    const page = await getPage(server, PAGE, cookie);
    expect(page.html).not.toContain('action="/console/notifications/test"');
  });

  test("test notices are bounded: 10 an hour per owner, then 429", async () => {
    const { cookie } = await newOwner();
    await setWebhook(cookie, `${receiver.url}/hook/${crypto.randomUUID()}`);
    for (let sent = 0; sent < 10; sent++) expect((await sendTest(cookie)).status).toBe(200);
    const refused = await sendTest(cookie);
    expect(refused.status).toBe(429);
    expect(messageIn(refused)).toContain("at most 10 test notices an hour");
    await server.advance(3601);
    expect((await sendTest(cookie)).status).toBe(200);
  });
});

describe("choosing channels", () => {
  const channelsOf = async (cookie: string) =>
    Object.fromEntries(formsOf((await getPage(server, PAGE, cookie)).html).find((form) => form.action === "/console/notifications/channels")!.fields);

  test("every kind is on by default; a kind turned off for the webhook is not sent there, others still are; both off says so", async () => {
    const { cookie } = await newOwner();
    // Before any webhook: e-mail is on for every kind, and saving the e-mail choices keeps the webhook's default.
    const before = await channelsOf(cookie);
    for (const kind of ["approval.held", "approval.reminder", "approval.ended", "agent.frozen", "key.created"]) expect(before[`email.${kind}`]).toBe("on");
    expect(before.webhookShown).toBeUndefined();
    expect((await submit(cookie, "/console/notifications/channels", { "email.key.created": undefined })).status).toBe(200);

    const path = `/hook/${crypto.randomUUID()}`;
    await setWebhook(cookie, `${receiver.url}${path}`);
    const withHook = await channelsOf(cookie);
    expect(withHook["webhook.key.created"]).toBe("on");
    expect(withHook["email.key.created"]).toBeUndefined();
    expect(withHook["webhook.approval.held"]).toBe("on");

    // The webhook off for held approvals: that kind's test is not sent, and the page says why.
    const saved = await submit(cookie, "/console/notifications/channels", { "webhook.approval.held": undefined });
    expect(saved.status).toBe(200);
    const refusedTest = await sendTest(cookie, "approval.held");
    expect(messageIn(refusedTest)).toContain("you turned the webhook off for “An outflow waits for your approval”");
    await sendTest(cookie, "agent.frozen");
    const delivered = await waitFor(() => to(path)[0]);
    expect(JSON.parse(delivered.body).type).toBe("agent.frozen");
    await Bun.sleep(300);
    expect(to(path)).toHaveLength(1);

    // E-mail off too: the page marks the kind, nothing is opted out silently.
    const page = await submit(cookie, "/console/notifications/channels", { "webhook.approval.held": undefined, "email.approval.held": undefined });
    const row = /<tr>(?:(?!<\/tr>)[\s\S])*?approval\.held[\s\S]*?<\/tr>/.exec(page.html)![0];
    expect(row).toContain("You will not be told");
    expect(page.html.match(/You will not be told/g)).toHaveLength(1);

    // And back on: sent again.
    await submit(cookie, "/console/notifications/channels", { "webhook.approval.held": "on" });
    await sendTest(cookie, "approval.held");
    await waitFor(() => to(path)[1]);
    expect(JSON.parse(to(path)[1]!.body).type).toBe("approval.held");
  });
});
