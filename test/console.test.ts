// The owner console in a real browser: headless Chromium (Debian's) driven by playwright-core.
// Without /usr/bin/chromium these tests are skipped, unless REQUIRE_BROWSER=1 (CI installs it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = join(import.meta.dir, "../test-artifacts/console");
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === "1") throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install chromium`);

let server: TestServer;
let browser: Browser;
let owner: Agent;
let other: Agent;

beforeAll(async () => {
  if (!haveBrowser) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  owner = await server.register({ name: "console-owner" });
  other = await server.register({ name: "console-other" });
  await server.deposit(owner.id, 75);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(key: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${server.url}/console`);
  await page.fill("#ownerKey", key);
  await page.click("button[type=submit]");
  return page;
}
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(!haveBrowser)("owner console", () => {
  test("sign in, see a pending negotiation, approve it, see it ACCEPTED through the API", async () => {
    const negotiation = (await server.request("POST", "/negotiations", { key: other.apiKey, body: { counterpartyId: owner.id, subject: "Data licence", offer: { amount: 1500, currency: "USDC", term: "1 year" } } })).body;
    await server.request("POST", `/negotiations/${negotiation.id}/accept`, { key: owner.apiKey });
    expect((await server.request("GET", `/negotiations/${negotiation.id}`, { key: owner.apiKey })).body.status).toBe("AWAITING_HUMAN_APPROVAL");

    const page = await signIn(owner.ownerKey);
    await page.waitForSelector("text=Balances");
    expect(await page.textContent("main")).toContain("75");
    await shot(page, "overview");
    await page.click("text=Approvals");
    await page.waitForSelector("text=Data licence");
    const offer = JSON.parse((await page.textContent("pre"))!);
    expect(offer).toEqual({ amount: 1500, currency: "USDC", term: "1 year" });
    await shot(page, "approvals");
    await page.click("button:has-text('Approve')");
    await page.waitForSelector("text=Approved");
    await shot(page, "approved");
    const after = await server.request("GET", `/negotiations/${negotiation.id}`, { key: owner.apiKey });
    expect(after.body).toMatchObject({ status: "ACCEPTED", approvedBy: owner.id });
    await page.close();
  });

  test("the other pages render; rotating shows the new key once and the old key dies", async () => {
    const page = await signIn(owner.ownerKey);
    for (const [link, name] of [["Activity", "activity"], ["Webhooks", "webhooks"], ["API key", "security"]] as const) {
      await page.click(`header >> text=${link}`);
      await page.waitForSelector("h1");
      await shot(page, name);
    }
    await page.click("button:has-text('Rotate')");
    const newKey = (await page.textContent("#new-api-key"))!.trim();
    await shot(page, "rotated");
    expect(newKey).toMatch(/^pp_/);
    expect((await server.request("GET", "/agents/me", { key: owner.apiKey })).status).toBe(401);
    expect((await server.request("GET", "/agents/me", { key: newKey })).status).toBe(200);
    owner.apiKey = newKey;
    await page.close();
  });

  test("a wrong key cannot sign in", async () => {
    const page = await signIn("po_not-a-real-key");
    await page.waitForSelector(".error");
    expect(await page.textContent(".error")).toContain("not valid");
    await shot(page, "wrong-key");
    expect((await page.context().cookies()).some((c) => c.name === "agentbank_session")).toBe(false);
    const agentKey = await signIn(owner.apiKey);
    await agentKey.waitForSelector(".error");
    await page.close();
    await agentKey.close();
  });

  test("a form post without the CSRF token is refused, and the session cookie is HttpOnly and SameSite=Strict", async () => {
    const page = await signIn(owner.ownerKey);
    await page.waitForSelector("text=Balances");
    const session = (await page.context().cookies()).find((c) => c.name === "agentbank_session")!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe("Strict");
    const cookieHeader = `agentbank_session=${session.value}`;
    for (const form of ["", "csrf=forged"]) {
      const reply = await fetch(`${server.url}/console/rotate`, { method: "POST", headers: { cookie: cookieHeader, "content-type": "application/x-www-form-urlencoded" }, body: form });
      expect(reply.status).toBe(403);
    }
    expect((await server.request("GET", "/agents/me", { key: owner.apiKey })).status).toBe(200);
    const login = await fetch(`${server.url}/console/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `ownerKey=${owner.ownerKey}` });
    expect(login.status).toBe(403);
    await page.close();
  });
});
