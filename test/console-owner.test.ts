// The owner console read by an owner (issue 23, finding 6), in Chromium at 1280 and 375 px: one history
// line per operation, balances that fit their cards, Activity with bookings and bet winners, and the
// history as CSV. Screenshots are kept in test-artifacts/console/ (gitignored). Skipped without
// /usr/bin/chromium unless REQUIRE_BROWSER=1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = join(import.meta.dir, "../test-artifacts/console");
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === "1") throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`);

const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 375, height: 812 } };
let server: TestServer;
let browser: Browser;
let alice: Agent;
let bob: Agent;

beforeAll(async () => {
  if (!haveBrowser) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  alice = await server.register({ name: "research-agent" });
  bob = await server.register({ name: "bob-bot" });
  await server.deposit(alice.id, 380.25);
  await server.deposit(alice.id, 12345.12345678, "BTC");
  await server.deposit(bob.id, 100);
  const pay = (reason: string, amount = 1) => server.request("POST", "/payments/send", { key: alice.apiKey, body: { toAgentId: bob.id, amount, currency: "USDC", reason } });
  expect((await pay('=HYPERLINK("http://evil","x")')).status).toBe(201);
  expect((await pay('He said "hi", twice')).status).toBe(201);
  // A bet alice wins, and a booking of bob's service.
  const bet = (await server.request("POST", "/betting", { key: alice.apiKey, body: { description: "Rain in Berlin", condition: "it rains", amount: 10, currency: "USDC" } })).body;
  expect((await server.request("POST", `/betting/${bet.id}/accept`, { key: bob.apiKey })).status).toBe(200);
  for (const party of [alice, bob]) expect((await server.request("POST", `/betting/${bet.id}/resolve`, { key: party.apiKey, body: { outcome: "MET" } })).status).toBe(200);
  const service = (await server.request("POST", "/services", { key: bob.apiKey, body: { name: "Room", description: "", category: "lodging", price: 7, currency: "USDC", pricingUnit: "FIXED" } })).body;
  const quote = (await server.request("POST", "/quotes", { key: alice.apiKey, body: { serviceId: service.id } })).body;
  expect((await server.request("POST", "/bookings", { key: alice.apiKey, body: { quoteId: quote.id } })).status).toBe(201);
  // The held payment: approved in the console by the first test.
  expect((await server.request("PUT", "/owner/policy", { key: alice.ownerKey, body: { approvalAbove: { USDC: 20 } } })).status).toBe(200);
  expect((await pay("Premium dataset", 30.5)).status).toBe(202);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport, locale: "en-US", timezoneId: "Europe/Berlin", acceptDownloads: true });
  await page.goto(`${server.url}/console`);
  await page.fill("#ownerKey", alice.ownerKey);
  await page.click("form[action='/console/login'] button[type=submit]");
  await page.waitForSelector("text=Balances");
  return page;
}
const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const cookieOf = async (page: Page) => (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");

/** Elements sticking out of their card, or out of the page (runs in the page). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const out = [];
    const width = document.documentElement.clientWidth;
    for (const card of document.querySelectorAll(".card, section")) {
      const box = card.getBoundingClientRect();
      for (const inner of card.querySelectorAll("*")) {
        const r = inner.getBoundingClientRect();
        if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)) out.push(inner.tagName + "." + inner.className + " in " + card.className + ": " + inner.textContent.slice(0, 30));
      }
    }
    if (document.documentElement.scrollWidth > width) out.push("page scrolls sideways");
    return out.slice(0, 5);
  })()`);
}

describe.skipIf(!haveBrowser)("the console, read by an owner", () => {
  test("the approval reads as a sentence; approved, the payment is one history line with its reason and the payee's name", async () => {
    const page = await signIn(VIEWPORTS.desktop);
    await page.click("header >> text=Approvals");
    expect(await page.textContent(".approval .sentence")).toBe("Pay 30.50 USDC to bob-bot for “Premium dataset”");
    await page.click("text=Approve…");
    await page.click("button:has-text('Yes, approve')");
    await page.waitForSelector("#outcome");
    await page.click("header >> text=Overview");
    const rows = page.locator("main table tbody tr");
    // Deposits (2), two small payments, the bet, the booking, the approved payment: one line each.
    expect(await rows.count()).toBe(7);
    const approved = rows.filter({ hasText: "Premium dataset" });
    expect(await approved.count()).toBe(1);
    const text = (await approved.textContent())!;
    expect(text).toContain("Paid “Premium dataset”");
    expect(text).toContain("held for your approval; you approved it");
    expect(text).toContain("bob-bot");
    expect(text).toContain("-30.50 USDC");
    expect(text).not.toMatch(/approval [0-9a-f]{8}/);
    expect((await rows.filter({ hasText: "Bet, won" }).textContent())!).toContain("“Rain in Berlin”");
    expect(await rows.filter({ hasText: "Booking" }).count()).toBe(1);
    await shot(page, "owner-overview-desktop");
    await expectLedgerOk(server);
    await page.close();
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    test(`at ${viewport.width} px the balances fit their cards and the empty currencies take one line`, async () => {
      const page = await signIn(viewport);
      expect(await overflowing(page)).toEqual([]);
      expect(await page.locator(".card").count()).toBe(2);
      expect(await page.textContent("#empty-currencies")).toBe("USDT, USD, EUR: 0");
      // On a phone the history starts on the first screen.
      if (name === "phone") expect((await page.locator("h2:has-text('History')").boundingBox())!.y).toBeLessThan(viewport.height);
      for (const path of ["/console/approvals", "/console/activity", "/console/policy"]) {
        await page.goto(`${server.url}${path}`);
        expect({ path, problems: await overflowing(page) }).toEqual({ path, problems: [] });
      }
      await page.goto(`${server.url}/console`);
      await shot(page, `owner-balances-${name}`);
      await page.close();
    });
  }

  test("Activity shows bookings and who won a settled bet", async () => {
    const page = await signIn(VIEWPORTS.phone);
    await page.click("header >> text=Activity");
    const bookings = (await page.locator("section", { hasText: "Bookings" }).textContent())!;
    expect(bookings).toContain("you booked");
    expect(bookings).toContain("bob-bot");
    expect(bookings).toContain("7.00 USDC");
    expect(await page.locator("section", { hasText: "Bets" }).locator("td[data-label=Result]").first().textContent()).toBe("You won");
    await shot(page, "owner-activity-phone");
    await page.close();
  });

  test("the history as CSV: one row per operation, quoted, formulas defused, the range bounded", async () => {
    const page = await signIn(VIEWPORTS.desktop);
    const from = await page.inputValue("form.export input[name=from]");
    const to = await page.inputValue("form.export input[name=to]");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("button:has-text('Download CSV')")]);
    const lines = readFileSync((await download.path())!, "utf8").split("\r\n");
    expect(lines[0]).toBe("date,time_utc,what,reason,counterparty,counterparty_id,amount,currency,approved_by_owner,reference");
    expect(lines.at(-1)).toBe("");
    expect(lines.length - 2).toBe(7);
    expect(lines.filter((line) => line.includes("Premium dataset"))).toHaveLength(1);
    expect(lines.find((line) => line.includes("Premium dataset"))).toContain(`,bob-bot,${bob.id},-30.500000,USDC,yes,`);
    expect(lines).toContainEqual(expect.stringContaining(`,"He said ""hi"", twice",`));
    expect(lines).toContainEqual(expect.stringContaining(`,"'=HYPERLINK(""http://evil"",""x"")",`));

    const cookie = await cookieOf(page);
    const get = (query: string) => fetch(`${server.url}/console/history.csv?${query}`, { headers: { cookie } });
    const btc = await get(`from=${from}&to=${to}&currency=BTC`);
    expect(btc.headers.get("content-type")).toContain("text/csv");
    expect((await btc.text()).trim().split("\r\n")).toHaveLength(2);
    for (const query of ["from=2024-01-01&to=2025-01-02", `from=${to}&to=2000-01-01`, "from=2025-02-30&to=2025-03-01", "from=x&to=y", `from=${from}&to=${to}&currency=XYZ`, ""]) {
      expect({ query, status: (await get(query)).status }).toEqual({ query, status: 400 });
    }
    expect((await get("from=2024-01-01&to=2024-12-31")).status).toBe(200); // 366 days, a leap year
    // Not signed in: the sign-in page, no data.
    const anonymous = await fetch(`${server.url}/console/history.csv?from=${from}&to=${to}`);
    expect(await anonymous.text()).toContain('action="/console/login"');
    await page.close();
  });
});
