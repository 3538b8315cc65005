// The console's Keys page in a real browser (issue 26): the owner makes a restricted key with the form
// (scopes, budgets, an allowlist by name, an expiry), sees it once, sees it listed with its budget left
// and last use; what the key did is named in the history and in the approval it asked for; revoking it
// (after a confirmation) makes the key 401 at once. Skipped without Chromium unless REQUIRE_BROWSER=1.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { haveBrowser, launchBrowser } from "./helpers/browser";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

setDefaultTimeout(30_000);

let server: TestServer;
let browser: Browser;
let owner: Agent;
let other: Agent;

beforeAll(async () => {
  if (!haveBrowser) return;
  server = await startServer();
  owner = await server.register({ name: "research-agent" });
  other = await server.register({ name: "translator-agent" });
  await server.deposit(owner.id, 1_000);
  // A payment makes translator-agent one the owner can tick by name.
  expect((await server.request("POST", "/payments/send", { key: owner.apiKey, body: { toAgentId: other.id, amount: 1, currency: "USDC" } })).status).toBe(201);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
  await page.goto(`${server.url}/console`);
  await page.fill("#ownerKey", owner.ownerKey);
  await page.click("form[action='/console/login'] button[type=submit]");
  return page;
}
const pay = (key: string, amount: number) => server.request("POST", "/payments/send", { key, body: { toAgentId: other.id, amount, currency: "USDC", reason: "a page" } });

describe.skipIf(!haveBrowser)("the Keys page", () => {
  test("make a key with the form, see it with its budget left, see what it did, revoke it: the key is 401", async () => {
    const page = await signIn();
    await page.goto(`${server.url}/console/security`);
    expect(await page.textContent("#connected-clients h2")).toBe("Connected clients");

    // The form is folded until asked for; a refused form comes back open, keeps what was sent and marks the field.
    await page.click("#new-key summary");
    await page.fill("#key-name", "sub-agent");
    await page.check('input[name="scope.pay"]');
    await page.fill('input[name="total.USDC"]', "fifty");
    await page.click('form[action="/console/security/keys"] button[type=submit]');
    expect(await page.getAttribute('input[name="total.USDC"]', "aria-invalid")).toBe("true");
    expect(await page.inputValue("#key-name")).toBe("sub-agent");

    await page.check('input[name="scope.read"]');
    await page.fill('input[name="total.USDC"]', "50");
    await page.fill('input[name="perTransaction.USDC"]', "5");
    await page.check(`input[name="allow.${other.id}"]`);
    await page.fill("#key-days", "7");
    await page.click('form[action="/console/security/keys"] button[type=submit]');
    const apiKey = (await page.textContent("#new-restricted-key"))!.trim();
    expect(apiKey).toStartWith("pp_r_");

    expect((await pay(apiKey, 6)).body.error).toBe("KEY_BUDGET_EXCEEDED");
    expect((await pay(apiKey, 2)).status).toBe(201);
    const listed = (await server.request("GET", "/agents/me/keys", { key: owner.apiKey })).body.data[0];
    expect(listed).toMatchObject({ name: "sub-agent", scopes: ["read", "pay"], allowlist: [other.id], budgets: { USDC: { total: 50, perTransaction: 5, spent: 2 } } });

    await page.goto(`${server.url}/console/security`);
    const row = page.locator("#restricted-keys tr", { hasText: "sub-agent" });
    expect(await row.textContent()).toContain("48.00 USDC left of 50.00 USDC");
    expect(await row.textContent()).toContain("Active");
    expect(await row.locator("td[data-label='Last used'] time").count()).toBe(1);

    // The history line and the approval it asked for name the key.
    await page.goto(`${server.url}/console`);
    expect(await page.locator("tr", { hasText: "a page" }).first().textContent()).toContain("by key “sub-agent”");
    expect((await server.request("PUT", "/owner/policy", { key: owner.ownerKey, body: { approvalAbove: { USDC: 3 } } })).status).toBe(200);
    expect((await pay(apiKey, 4)).status).toBe(202);
    await page.goto(`${server.url}/console/approvals`);
    expect(await page.textContent(".approval .sentence")).toContain("asked by key “sub-agent”");

    // Revoke, after a confirmation.
    await page.goto(`${server.url}/console/security`);
    await row.locator("a", { hasText: "Revoke" }).click();
    expect(await page.textContent(".confirm")).toContain("sub-agent");
    await page.click(".confirm button[type=submit]");
    expect(page.url()).toBe(`${server.url}/console/security`);
    expect(await page.locator("#restricted-keys tr", { hasText: "sub-agent" }).textContent()).toContain("Revoked");
    expect((await server.request("GET", "/wallets/balance", { key: apiKey })).status).toBe(401);
    await page.close();
    await expectLedgerOk(server);
  });

  test("a revoke without the session's CSRF token is refused and the key still works", async () => {
    const made = await server.request("POST", "/agents/me/keys", { key: owner.ownerKey, body: { name: "dashboard", scopes: ["read"] } });
    const page = await signIn();
    const answer = await page.request.post(`${server.url}/console/security/keys/${made.body.id}/revoke`, { form: { csrf: "wrong" } });
    expect(answer.status()).toBe(403);
    expect((await server.request("GET", "/wallets/balance", { key: made.body.apiKey })).status).toBe(200);
    await page.close();
  });
});
