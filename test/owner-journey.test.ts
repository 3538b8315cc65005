// The owner's journey (issue 33), end to end as a person lives it: an agent registers itself; its answer
// holds no owner key; the owner's mailbox (a real SMTP server) gets the claim; the owner follows the
// link in Chromium, confirms, sets a policy (approval above 20 USDC); the agent pays 50; within 5 s the
// owner's mailbox has the approval message; its link, opened in a fresh browser, leads (after signing in
// by mail) to the approval; approving makes the payment exactly once. Then the reminder an hour before
// it expires, and the notices of an expiry, a freeze and a new key. Without SMTP_URL the same messages
// land in the outbox folder.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { claimByMail, formsOf, getPage, postForm } from "./helpers/console";
import { haveBrowser, launchBrowser } from "./helpers/browser";
import { expectLedgerOk } from "./helpers/ledger";
import { outboxFiles, parseOutboxFile, smtpReceiver, type Received } from "./helpers/mail";
import { ADMIN_KEY, startServer, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

let server: TestServer;
let browser: Browser;
const smtp = smtpReceiver();

beforeAll(async () => {
  await smtp.listen();
  server = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", SMTP_URL: smtp.url } });
  if (haveBrowser) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp.close();
});

const newest = (to: string, subject: RegExp) => smtp.received.filter((entry) => entry.envelope.to.includes(to) && subject.test(entry.mail.subject ?? "")).at(-1);
const mailTo = (to: string, subject: RegExp, ms = 5_000) => waitFor(() => newest(to, subject), ms);
const linkIn = (received: Received) => /(https?:\/\/\S+\/console\/\S+)/.exec(received.mail.text ?? "")![1]!;

async function register(name: string, ownerEmail: string) {
  const reply = await server.request("POST", "/agents/register", { body: { name, ownerName: "Grace", ownerEmail } });
  expect(reply.status).toBe(201);
  return reply.body as { agent: { id: string }; apiKey: string; ownerKey?: string };
}

/** Signs in by e-mail in `page` (it shows the sign-in page): asks for the link, opens it from the mailbox, confirms. */
async function signInByMail(page: Page, email: string) {
  const before = smtp.received.length;
  await page.fill("#email", email);
  await page.click("form[action='/console/login/email'] button[type=submit]");
  await page.waitForSelector("text=a sign-in link is on its way");
  const mail = await waitFor(() => smtp.received.slice(before).find((entry) => entry.envelope.to.includes(email) && /sign-in link/.test(entry.mail.subject ?? "")));
  await page.goto(linkIn(mail));
  await page.click("button[type=submit]");
}

describe.skipIf(!haveBrowser)("from the claim to the first approval, in Chromium", () => {
  test("claim, policy, a held payment mailed within 5 s, its link after signing in by mail, approved once", async () => {
    const email = `grace-${crypto.randomUUID()}@example.com`;
    const agent = await register("data-buyer", email);
    expect(agent.ownerKey).toBeUndefined();
    const vendor = await register("data-vendor", `vendor-${crypto.randomUUID()}@example.com`);
    await server.deposit(agent.agent.id, 200, "USDC");

    // The claim, on a phone.
    const claim = await mailTo(email, /Claim your agent/);
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await phone.goto(linkIn(claim));
    await phone.click("button[type=submit]");
    await phone.waitForSelector("text=Balances");
    await phone.goto(`${server.url}/console/policy`);
    await phone.fill("input[name='approvalAbove.USDC']", "20");
    await phone.click("form[action='/console/policy'] button[type=submit]");
    await phone.waitForSelector("text=saved");
    await phone.close();

    // The agent pays 50: held, and the owner is told within 5 s, in the words of the console's card.
    const sent = Date.now();
    const held = await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: vendor.agent.id, amount: 50, currency: "USDC", reason: "Premium satellite imagery" } });
    expect(held.status).toBe(202);
    const notice = await mailTo(email, /Waiting for your approval/, 5_000);
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect(notice.mail.subject).toBe("Waiting for your approval: Pay 50.00 USDC to data-vendor for “Premium satellite imagery”");
    expect(notice.mail.text).toMatch(/waiting for your approval until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    // A fresh browser (no session): the link asks to sign in, by mail, then shows the approval; two taps decide.
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(linkIn(notice));
    await signInByMail(page, email);
    await page.waitForSelector("#approval");
    expect(await page.textContent("#approval")).toContain("data-vendor");
    expect(await server.balance({ apiKey: vendor.apiKey }, "USDC")).toEqual({ available: 0, held: 0 });
    await page.click("form[action$='/approve'] button");
    await page.waitForSelector("#outcome");
    // Exactly once: the link opened again shows it decided, with nothing to press, and the payee has 50.
    await page.goto(linkIn(notice));
    expect(await page.textContent("#outcome")).toContain("You approved this");
    expect(await page.locator("form[action$='/approve']").count()).toBe(0);
    expect(await server.balance({ apiKey: vendor.apiKey }, "USDC")).toEqual({ available: 50, held: 0 });
    expect(await server.balance({ apiKey: agent.apiKey }, "USDC")).toEqual({ available: 150, held: 0 });
    await page.close();
    await expectLedgerOk(server);
  });
});

describe("what else the owner is told", () => {
  async function claimed(name: string) {
    const email = `owner-${crypto.randomUUID()}@example.com`;
    const agent = await register(name, email);
    const claim = await mailTo(email, /Claim your agent/);
    const link = linkIn(claim).replace(server.url, "");
    const page = await fetch(server.url + link);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const done = await fetch(server.url + link, { method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${csrf}`, redirect: "manual" });
    expect(done.status).toBe(303);
    return { ...agent, email };
  }

  test("a reminder an hour before the approval expires, then its expiry; an unclaimed agent's held outflow reaches the claim address with a new claim link", async () => {
    const agent = await claimed("forgetful");
    const payee = await register("payee", `p-${crypto.randomUUID()}@example.com`);
    await server.deposit(agent.agent.id, 100, "USDC");
    // The policy it started with (UNCLAIMED_POLICY, approval above 10) stays until its owner changes it.
    const policy = await server.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC" } });
    expect(policy.status).toBe(202);
    await mailTo(agent.email, /Waiting for your approval/);
    await server.advance(23 * 3600 + 60);
    const reminder = await mailTo(agent.email, /Still waiting/);
    expect(reminder.mail.text).toContain("expires at");
    await server.advance(3600);
    const expired = await mailTo(agent.email, /^Expired:/);
    expect(expired.mail.text).toContain("nobody decided in time");

    const unclaimedEmail = `later-${crypto.randomUUID()}@example.com`;
    const unclaimed = await register("unclaimed", unclaimedEmail);
    await server.deposit(unclaimed.agent.id, 100, "USDC");
    expect((await server.request("POST", "/payments/send", { key: unclaimed.apiKey, body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC" } })).status).toBe(202);
    const waiting = await mailTo(unclaimedEmail, /Waiting for your approval/);
    expect(waiting.mail.text).toContain("first claim the agent");
    await waitFor(() => (smtp.received.filter((entry) => entry.envelope.to.includes(unclaimedEmail) && /Claim your agent/.test(entry.mail.subject ?? "")).length === 2 ? true : undefined));
    await expectLedgerOk(server);
  });

  test("a freeze and an unfreeze, and a restricted key made for the agent", async () => {
    const agent = await claimed("braked");
    const frozen = await server.request("POST", `/admin/agents/${agent.agent.id}/freeze`, { key: ADMIN_KEY, body: { reason: "investigating" } });
    expect(frozen.status).toBe(200);
    const notice = await mailTo(agent.email, /was frozen by the operator/);
    expect(notice.mail.text).toContain("investigating");
    expect((await server.request("POST", `/admin/agents/${agent.agent.id}/unfreeze`, { key: ADMIN_KEY, body: {} })).status).toBe(200);
    await mailTo(agent.email, /was unfrozen by the operator/);
    const key = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "sub-agent", scopes: ["read", "pay"] } });
    expect(key.status).toBe(201);
    const made = await mailTo(agent.email, /A new key may act for your agent/);
    expect(made.mail.text).toContain("The agent's own key made the key “sub-agent”, which may read, pay");
  });
});

describe("without SMTP_URL", () => {
  test("the claim and the approval notice land in the outbox folder, one file each", async () => {
    const local = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", UNCLAIMED_POLICY: "approvalAbove=20" } });
    try {
      const agent = (await local.request("POST", "/agents/register", { body: { name: "offline", ownerName: "Lin", ownerEmail: "lin@example.com" } })).body;
      const payee = (await local.request("POST", "/agents/register", { body: { name: "payee", ownerName: "Lin", ownerEmail: "lin2@example.com" } })).body;
      await local.deposit(agent.agent.id, 100, "USDC");
      expect((await local.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC" } })).status).toBe(202);
      const subjects = await waitFor(async () => {
        const files = outboxFiles(local).filter((name) => name.endsWith(".eml"));
        const parsed = await Promise.all(files.map((name) => parseOutboxFile(local, name)));
        const toLin = parsed.filter((mail) => mail.to && JSON.stringify(mail.to).includes("lin@example.com")).map((mail) => mail.subject ?? "");
        return toLin.length >= 3 ? toLin : undefined;
      });
      expect(subjects.filter((subject) => subject.startsWith("Claim your agent")).length).toBe(2);
      expect(subjects.filter((subject) => subject.startsWith("Waiting for your approval")).length).toBe(1);
    } finally {
      await local.close();
    }
  });
});

describe("through the owner's webhook", () => {
  test("a held payment reaches the owner's webhook, verified with standardwebhooks; its link approves it once", async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response("ok");
    } });
    const local = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
    try {
      const email = `hook-${crypto.randomUUID()}@example.com`;
      const agent = (await local.request("POST", "/agents/register", { body: { name: "hooked", ownerName: "Ida", ownerEmail: email } })).body;
      const payee = (await local.request("POST", "/agents/register", { body: { name: "payee", ownerName: "Ida", ownerEmail: `p-${email}` } })).body;
      const cookie = await claimByMail(local, email);
      // The owner sets its webhook on the Notifications page and is shown the signing secret once.
      const page = await getPage(local, "/console/notifications", cookie);
      const form = formsOf(page.html).find((candidate) => candidate.action === "/console/notifications/webhook")!;
      const fields = form.fields.filter(([name]) => name !== "url" && name !== "format");
      const saved = await postForm(local, form.action, [...fields, ["url", `http://127.0.0.1:${receiver.port}/owner`], ["format", "standard"]], cookie);
      const secret = /id="new-secret">(whsec_[^<]+)</.exec(saved.html)![1]!;

      await local.deposit(agent.agent.id, 100, "USDC");
      const held = await local.request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC", reason: "GPU hours" } });
      expect(held.status).toBe(202);
      const delivery = await waitFor(() => received.find((entry) => entry.body.includes("approval.held")), 5_000);
      const event = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; data: { agentName: string; subject: string; link: string; data: { approvalId: string } } };
      expect(event).toMatchObject({ type: "approval.held", data: { agentName: "hooked", subject: "Waiting for your approval: Pay 50.00 USDC to payee for “GPU hours”" } });
      expect(event.data.link).toBe(`${local.url}/console/approvals/${held.body.approvalId}`);

      // The link, in the owner's signed-in console: both decisions; approving pays once.
      const card = await getPage(local, event.data.link.replace(local.url, ""), cookie);
      const approve = formsOf(card.html).find((candidate) => candidate.action.endsWith("/approve"))!;
      expect((await postForm(local, approve.action, approve.fields, cookie)).status).toBe(200);
      expect((await postForm(local, approve.action, approve.fields, cookie)).status).toBe(409);
      expect(await local.balance({ apiKey: payee.apiKey }, "USDC")).toEqual({ available: 50, held: 0 });
      await expectLedgerOk(local);
    } finally {
      await local.close();
      receiver.stop(true);
    }
  });
});
