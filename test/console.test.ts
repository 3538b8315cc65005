// The owner console in a real browser: headless Chromium (Debian's) driven by playwright-core, at
// 1280 px and 375 px. Without /usr/bin/chromium these tests are skipped, unless REQUIRE_BROWSER=1 (CI
// installs it). Screenshots of every step go to test-artifacts/console/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = join(import.meta.dir, "../test-artifacts/console");
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === "1") throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install chromium`);

setDefaultTimeout(30_000);

const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };

let server: TestServer;
let browser: Browser;
let owner: Agent;
let other: Agent;

// A webhook receiver that fails while `failing` is set, and keeps what it got.
let failing = true;
const received: { body: string; headers: Record<string, string> }[] = [];
const receiver = haveBrowser
  ? Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        received.push({ body: await request.text(), headers: Object.fromEntries(request.headers) });
        return new Response(null, { status: failing ? 500 : 204 });
      },
    })
  : null;

beforeAll(async () => {
  if (!haveBrowser) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  owner = await server.register({ name: "research-agent" });
  other = await server.register({ name: "translator-agent" });
  await server.deposit(owner.id, 5_000);
  await server.deposit(owner.id, 287.5, "EUR");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  // A server to start and, on a new machine, a browser's first start: more than a test's 30 s may go.
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  receiver?.stop(true);
});

async function signIn(key: string, viewport = PHONE): Promise<Page> {
  const page = await browser.newPage({ viewport, locale: "en-US", timezoneId: "Europe/Berlin" });
  await page.goto(`${server.url}/console`);
  await page.fill("#ownerKey", key);
  await page.click("form[action='/console/login'] button[type=submit]");
  return page;
}
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const pay = (amount: number, currency = "USDC") => server.request("POST", "/payments/send", { key: owner.apiKey, body: { toAgentId: other.id, amount, currency, reason: "annual data licence" } });
const setPolicy = (policy: Record<string, unknown>) => server.request("PUT", "/owner/policy", { key: owner.ownerKey, body: policy });

/** Every element inside the viewport's width: nothing scrolls sideways. (Runs in the page, hence a string.) */
async function widest(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const culprits = [];
    for (const element of document.querySelectorAll("body *")) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 1) culprits.push(element.tagName.toLowerCase() + "." + element.className + " (" + Math.round(box.right) + " px)");
    }
    return { overflow: document.documentElement.scrollWidth - width, culprits: culprits.slice(0, 5) };
  })()`);
}

describe.skipIf(!haveBrowser)("owner console", () => {
  test("overview: the agent's name, amounts per currency with their USD value, names for counterparties, local times", async () => {
    await setPolicy({});
    expect((await pay(12.5)).status).toBe(201);
    const page = await signIn(owner.ownerKey, DESKTOP);
    await page.waitForSelector("text=Balances");
    const header = await page.textContent("header");
    expect(header).toContain("research-agent");
    const main = (await page.textContent("main"))!;
    expect(main).toContain("4,987.50 USDC");
    expect(main).toContain("287.50 EUR");
    expect(main).toContain("≈ 310.50 USD");
    expect(main).toContain("translator-agent");
    expect(await page.getAttribute(".name", "title")).toBe(other.id);
    // Times are the viewer's (Berlin, English), not raw UTC ISO.
    const when = (await page.textContent("time"))!;
    expect(when).not.toMatch(/UTC|T\d\d:/);
    expect(await page.getAttribute("time", "title")).toMatch(/^\d{4}-\d\d-\d\dT/);
    await shot(page, "overview-desktop");
    await page.close();
  });

  test("a held payment, approved after a confirmation in words: the money moves once", async () => {
    await setPolicy({ approvalAbove: { USDC: 20 } });
    const held = await pay(48);
    expect(held.status).toBe(202);
    const before = await server.balance(owner);
    const page = await signIn(owner.ownerKey);
    expect(await page.textContent("#pending-count")).toBe("1");
    await page.click("header >> text=Approvals");
    await page.waitForSelector(".approval");
    const card = (await page.textContent(".approval"))!;
    // In words, one sentence; the raw terms only behind a <details>.
    expect(await page.textContent(".approval .sentence")).toBe("Pay 48.00 USDC to translator-agent for “annual data licence”");
    expect(card).toContain("above your approval amount of 20.00 USDC");
    expect(await page.isVisible(".approval dl.terms")).toBe(false);
    await page.click(".approval summary");
    expect(await page.textContent(".approval dl.terms")).toContain("toAgentId");
    await shot(page, "approvals-phone");
    await page.click("text=Approve…");
    await page.waitForSelector("#amount-in-words");
    expect(await page.textContent("#amount-in-words")).toBe("forty-eight USDC");
    // Nothing has happened yet.
    expect(await server.balance(owner)).toEqual(before);
    await shot(page, "approve-confirm");
    await page.click("button:has-text('Yes, approve')");
    await page.waitForSelector("#outcome");
    expect(await page.textContent("#outcome")).toBe("You approved this: Pay 48.00 USDC to translator-agent for “annual data licence”.");
    await shot(page, "approved");
    expect(await server.balance(owner)).toEqual({ available: before.available, held: 0 });
    expect(await server.balance(other)).toEqual({ available: 60.5, held: 0 });
    // Sending the confirmation again (back button, double click) moves nothing more.
    const csrf = (await page.getAttribute("input[name=csrf]", "value"))!;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const again = await fetch(`${server.url}/console/approvals/${held.body.approvalId}/approve`, { method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${csrf}` });
    expect(again.status).toBe(409);
    expect(await server.balance(other)).toEqual({ available: 60.5, held: 0 });
    expect(await page.locator("#pending-count").count()).toBe(0);
    await expectLedgerOk(server);
    await page.close();
  });

  test("a held payment declined: the hold is released; a negotiation is approved and another declined", async () => {
    await setPolicy({ approvalAbove: { EUR: 20 } });
    const held = await pay(87.5, "EUR");
    expect(held.status).toBe(202);
    const negotiate = async (subject: string) => {
      const created = (await server.request("POST", "/negotiations", { key: other.apiKey, body: { counterpartyId: owner.id, subject, offer: { amount: 1500, currency: "USDC", term: "1 year" } } })).body;
      await server.request("POST", `/negotiations/${created.id}/accept`, { key: owner.apiKey });
      return created.id as string;
    };
    const first = await negotiate("Data licence");
    const second = await negotiate("Compute lease");
    const page = await signIn(owner.ownerKey, DESKTOP);
    expect(await page.textContent("#pending-count")).toBe("3");
    await page.goto(`${server.url}/console/approvals/${held.body.approvalId}/decline`);
    expect(await page.textContent("#amount-in-words")).toBe("eighty-seven and 50/100 EUR");
    await page.click("button:has-text('Yes, decline')");
    await page.waitForSelector("#outcome");
    expect(await page.textContent("#outcome")).toMatch(/^You declined this: Pay 87\.50 EUR to translator-agent/);
    expect(await page.textContent("main")).not.toContain("DECLINED_BY_OWNER");
    expect(await server.balance(owner, "EUR")).toEqual({ available: 287.5, held: 0 });

    await page.click("header >> text=Approvals");
    const negotiation = page.locator(".approval", { hasText: "Agree with translator-agent" }).first();
    expect(await negotiation.textContent()).toContain("above the service's 1,000.00 USD threshold");
    await page.goto(`${server.url}/console/approvals/${first}/approve`);
    expect(await page.textContent("#amount-in-words")).toBe("one thousand five hundred USDC");
    await page.click("button:has-text('Yes, approve')");
    await page.waitForSelector("#outcome");
    await page.goto(`${server.url}/console/approvals/${second}/decline`);
    await page.click("button:has-text('Yes, decline')");
    await page.waitForSelector("#outcome");
    await shot(page, "declined");
    expect((await server.request("GET", `/negotiations/${first}`, { key: owner.apiKey })).body.status).toBe("ACCEPTED");
    expect((await server.request("GET", `/negotiations/${second}`, { key: owner.apiKey })).body.status).toBe("REJECTED");
    await page.click("header >> text=Approvals");
    expect(await page.textContent("main")).toContain("Nothing is waiting for you.");
    await shot(page, "approvals-decided-desktop");
    await expectLedgerOk(server);
    await page.close();
  });

  test("the policy is edited in the console and applies to the next outflow", async () => {
    await setPolicy({});
    const page = await signIn(owner.ownerKey);
    await page.click("header >> text=Policy");
    await page.fill("input[name='perTransaction.USDC']", "50");
    await page.fill("input[name='daily.USDC']", "200");
    // The allowlist by name: translator-agent is a counterparty already.
    await page.check("label:has-text('translator-agent') input[type=checkbox]");
    await page.click("button:has-text('Save the policy')");
    await page.waitForSelector("#policy-message");
    expect(await page.textContent("#policy-message")).toContain("Saved");
    await shot(page, "policy-saved");
    expect((await server.request("GET", "/owner/policy", { key: owner.ownerKey })).body).toMatchObject({ perTransaction: { USDC: 50 }, daily: { USDC: 200 }, allowlist: [other.id] });
    expect((await pay(60)).body.error).toBe("POLICY_LIMIT_EXCEEDED");
    // A bad value is refused with the reason beside it, kept in the field, and nothing changes.
    await page.fill("input[name='perTransaction.USDC']", "-3");
    await page.fill("input[name='daily.EUR']", "75");
    await page.click("button:has-text('Save the policy')");
    await page.waitForSelector("#policy-message.error");
    const refusedField = page.locator("input[name='perTransaction.USDC']");
    expect(await refusedField.inputValue()).toBe("-3");
    expect(await refusedField.getAttribute("aria-invalid")).toBe("true");
    expect(await page.textContent(`#${(await refusedField.getAttribute("aria-describedby"))!}`)).toContain("is not an amount");
    expect(await page.inputValue("input[name='daily.EUR']")).toBe("75");
    expect(await page.isChecked("label:has-text('translator-agent') input[type=checkbox]")).toBe(true);
    await shot(page, "policy-refused");
    expect((await server.request("GET", "/owner/policy", { key: owner.ownerKey })).body.perTransaction).toEqual({ USDC: 50 });
    // A name that is no known counterparty is refused beside the box.
    await page.fill("input[name='perTransaction.USDC']", "50");
    await page.fill("textarea[name=allowlist]", "nobody-i-know");
    await page.click("button:has-text('Save the policy')");
    await page.waitForSelector("#policy-message.error");
    expect(await page.getAttribute("textarea[name=allowlist]", "aria-invalid")).toBe("true");
    expect(await page.inputValue("textarea[name=allowlist]")).toBe("nobody-i-know");
    await setPolicy({});
    await page.close();
  });

  test("webhooks: a failed delivery is sent again by hand; the signing secret is rotated, shown once, and signs from then on", async () => {
    const hook = await server.request("PUT", "/agents/me/webhook", { key: owner.apiKey, body: { webhookUrl: `http://127.0.0.1:${receiver!.port}/hook` } });
    const oldSecret = hook.body.secret as string;
    failing = true;
    await server.request("POST", "/payments/send", { key: other.apiKey, body: { toAgentId: owner.id, amount: 1, currency: "USDC" } });
    const deliveries = async () => (await server.request("GET", "/agents/me/webhook/deliveries", { key: owner.apiKey })).body.data as any[];
    for (let i = 0; i < 50 && (await deliveries()).length === 0; i++) await Bun.sleep(50);
    expect((await deliveries())[0].outcome).toBe("FAILED");

    failing = false;
    const page = await signIn(owner.ownerKey);
    await page.click("header >> text=Webhooks");
    // The form posts, then follows the 303 to the webhooks page: wait for that page, or the reload below
    // races the navigation ("Not attached to an active page", seen once in CI).
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === "GET" && new URL(response.url()).pathname === "/console/webhooks"),
      page.click("button:has-text('Send again')"),
    ]);
    await page.waitForLoadState("load");
    for (let i = 0; i < 50 && (await deliveries())[0].outcome !== "DELIVERED"; i++) await Bun.sleep(50);
    expect((await deliveries()).map((d) => d.outcome)).toEqual(["DELIVERED", "FAILED"]);
    const resent = received.at(-1)!;
    expect(new Webhook(oldSecret).verify(resent.body, resent.headers)).toMatchObject({ event: "payment.received" });

    await page.reload();
    await page.click("text=Rotate the signing secret…");
    await page.click("button:has-text('Yes, replace the signing secret')");
    const newSecret = (await page.textContent("#new-secret"))!.trim();
    await shot(page, "secret-rotated");
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    // Shown once: the page does not show it again.
    await page.click("header >> text=Webhooks");
    await page.waitForURL(`${server.url}/console/webhooks`); // count() does not wait: not the page that showed it
    expect(await page.locator("#new-secret").count()).toBe(0);
    await server.request("POST", "/payments/send", { key: other.apiKey, body: { toAgentId: owner.id, amount: 1, currency: "USDC" } });
    for (let i = 0; i < 50 && received.length < 3; i++) await Bun.sleep(50);
    const next = received.at(-1)!;
    expect(new Webhook(newSecret).verify(next.body, next.headers)).toMatchObject({ event: "payment.received" });
    expect(() => new Webhook(oldSecret).verify(next.body, next.headers)).toThrow();
    await page.close();
  });

  test("at 375 px no page is wider than the screen", async () => {
    await setPolicy({ approvalAbove: { USDC: 20 } });
    await pay(50);
    const page = await signIn(owner.ownerKey, PHONE);
    for (const [path, name] of [
      ["/console", "overview-phone"],
      ["/console/approvals", "approvals-phone-2"],
      ["/console/activity", "activity-phone"],
      ["/console/policy", "policy-phone"],
      ["/console/webhooks", "webhooks-phone"],
      ["/console/security", "security-phone"],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.waitForSelector("h1");
      const { overflow, culprits } = await widest(page);
      expect({ path, overflow, culprits }).toEqual({ path, overflow: 0, culprits: [] });
      await shot(page, name);
    }
    // The history's amounts and counterparties are on screen, not in a hidden scroller.
    await page.goto(`${server.url}/console`);
    const amount = page.locator("td[data-label=Amount]").first();
    expect(await amount.isVisible()).toBe(true);
    const box = (await amount.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    await setPolicy({});
    await page.close();
  });

  test("rotating the API key asks first, shows the new key once, and the old key dies", async () => {
    const page = await signIn(owner.ownerKey);
    await page.click("header >> text=Keys");
    await page.click("text=Rotate the API key…");
    // The confirmation page: nothing rotated yet.
    expect((await server.request("GET", "/agents/me", { key: owner.apiKey })).status).toBe(200);
    await page.click("button:has-text('Yes, replace the API key')");
    const newKey = (await page.textContent("#new-api-key"))!.trim();
    await shot(page, "rotated");
    expect(newKey).toMatch(/^pp_/);
    expect((await server.request("GET", "/agents/me", { key: owner.apiKey })).status).toBe(401);
    expect((await server.request("GET", "/agents/me", { key: newKey })).status).toBe(200);
    owner.apiKey = newKey;
    await page.close();
  });

  test("replacing the owner key asks first, shows the new key once, and ends every session signed in with the old key", async () => {
    const page = await signIn(owner.ownerKey);
    const elsewhere = await signIn(owner.ownerKey);
    await elsewhere.waitForSelector("h1");
    await page.click("header >> text=Keys");
    await page.click("text=Replace the owner key…");
    // The confirmation page: nothing replaced yet.
    expect((await server.request("GET", "/owner/policy", { key: owner.ownerKey })).status).toBe(200);
    await page.click("button:has-text('Yes, replace the owner key')");
    const newKey = (await page.textContent("#new-owner-key"))!.trim();
    await shot(page, "owner-key-replaced");
    expect(newKey).toMatch(/^po_/);
    expect((await server.request("GET", "/owner/policy", { key: owner.ownerKey })).status).toBe(401);
    expect((await server.request("GET", "/owner/policy", { key: newKey })).status).toBe(200);
    // Both sessions signed in with the old key are over: the console asks to sign in again.
    for (const signedOut of [page, elsewhere]) {
      await signedOut.goto(`${server.url}/console/policy`);
      expect(await signedOut.locator("#ownerKey").count()).toBe(1);
    }
    await page.fill("#ownerKey", newKey);
    await page.click("form[action='/console/login'] button[type=submit]");
    await page.waitForSelector("header >> text=Keys");
    owner.ownerKey = newKey;
    await page.close();
    await elsewhere.close();
  });

  test("a wrong key cannot sign in", async () => {
    const page = await signIn("po_not-a-real-key");
    await page.waitForSelector(".error");
    expect(await page.textContent(".error")).toContain("not valid");
    await shot(page, "wrong-key");
    expect((await page.context().cookies()).some((c) => c.name === "agentbank_session")).toBe(false);
    const agentKey = await signIn(owner.apiKey);
    await agentKey.waitForSelector(".error");
    expect(await agentKey.textContent(".error")).toBe("This is an agent key (pp_…); sign in with the owner key (po_…) shown at registration.");
    await shot(agentKey, "agent-key-sign-in");
    await page.close();
    await agentKey.close();
  });

  test("a form post without the CSRF token is refused, and the session cookie is HttpOnly and SameSite=Strict", async () => {
    await setPolicy({ approvalAbove: { USDC: 20 } });
    const held = await pay(30);
    const page = await signIn(owner.ownerKey);
    await page.waitForSelector("text=Balances");
    const session = (await page.context().cookies()).find((c) => c.name === "agentbank_session")!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe("Strict");
    const cookieHeader = `agentbank_session=${session.value}`;
    for (const path of ["/console/rotate", `/console/approvals/${held.body.approvalId}/approve`, "/console/policy", "/console/webhooks/rotate"]) {
      for (const form of ["", "csrf=forged"]) {
        const reply = await fetch(`${server.url}${path}`, { method: "POST", headers: { cookie: cookieHeader, "content-type": "application/x-www-form-urlencoded" }, body: form });
        expect(reply.status).toBe(403);
      }
    }
    expect((await server.request("GET", "/agents/me", { key: owner.apiKey })).status).toBe(200);
    expect((await server.request("GET", `/approvals/${held.body.approvalId}`, { key: owner.apiKey })).body.status).toBe("PENDING");
    const login = await fetch(`${server.url}/console/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `ownerKey=${owner.ownerKey}` });
    expect(login.status).toBe(403);
    await server.request("POST", `/owner/approvals/${held.body.approvalId}/decline`, { key: owner.ownerKey });
    await setPolicy({});
    await page.close();
  });
});
