// The API reference stays home: /swagger renders in headless Chromium (test/helpers/browser.ts: skipped
// without it, unless REQUIRE_BROWSER=1) with every request going to the service itself: no web fonts,
// no "Ask AI", no MCP generator, no share/deploy toolbar. And GET / answers where everything is, as a
// page or as JSON. Screenshots go to test-artifacts/docs/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { haveBrowser, launchBrowser } from "./helpers/browser";
import { startServer, type TestServer } from "./helpers/server";

const ARTIFACTS = join(import.meta.dir, "../test-artifacts/docs");

setDefaultTimeout(60_000);

/** What the reference must not offer on a self-hosted bank: each sends the document or the reader elsewhere. */
const FOREIGN_FEATURES = ["Ask AI", "Generate MCP", "Connect MCP", "Deploy", "Share", "Developer Tools", "Configure"];

let server: TestServer;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await startServer();
  if (!haveBrowser) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser();
  // A server to start and, on a new machine, a browser's first start: more than a test's time may go.
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A browser context that records every request it makes and refuses (aborts) any to another host. */
async function recordingContext(): Promise<{ context: BrowserContext; requests: string[]; foreign: () => string[] }> {
  const origin = new URL(server.url).origin;
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
  const requests: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    return url.startsWith("data:") || new URL(url).origin === origin ? route.continue() : route.abort("blockedbyclient");
  });
  return { context, requests, foreign: () => requests.filter((url) => !url.startsWith("data:") && new URL(url).origin !== origin) };
}

async function openReference(context: BrowserContext) {
  const page = await context.newPage();
  await page.goto(`${server.url}/swagger`);
  // Rendered: the document's own text (the Authentication section) and the last tag in the sidebar.
  await page.locator("h2", { hasText: /^Authentication$/ }).first().waitFor();
  await page.locator("text=Operator").first().waitFor();
  // Late requests (fonts are fetched when text is laid out) come before the network settles.
  await page.waitForLoadState("networkidle");
  return page;
}

describe.skipIf(!haveBrowser)("API reference in a browser", () => {
  test("renders from this service alone: no request to another host, no Ask AI / MCP generator / share / deploy", async () => {
    const { context, requests, foreign } = await recordingContext();
    const page = await openReference(context);
    await page.screenshot({ path: join(ARTIFACTS, "reference.png") });
    expect(requests.some((url) => url.endsWith("/swagger/json"))).toBe(true);
    expect(foreign()).toEqual([]);
    const text = await page.innerText("body");
    for (const feature of FOREIGN_FEATURES) expect({ feature, shown: text.includes(feature) }).toEqual({ feature, shown: false });
    // Which key goes where, with an example.
    for (const line of ["Agent key", "Owner key", "Operator key", "ADMIN_API_KEY", "Authorization: Bearer pp_"]) expect(text).toContain(line);
    await context.close();
  });

  test("Test Request: the agent key is preselected and the request goes to the service itself", async () => {
    const { context, requests, foreign } = await recordingContext();
    const page = await openReference(context);
    // The first operation is GET / (the Service tag).
    await page.getByRole("button", { name: /Test Request/ }).first().click();
    await page.locator("text=Selected Auth Type: agentKey").first().waitFor();
    const sent = page.waitForResponse((response) => response.url() === `${server.url}/` && response.request().method() === "GET");
    await page.getByRole("button", { name: /^Send/ }).first().click();
    expect((await sent).status()).toBe(200);
    await page.locator("text=200 OK").first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "test-request.png") });
    expect(requests).toContain(`${server.url}/`);
    expect(foreign()).toEqual([]);
    await context.close();
  });
});

describe("GET /", () => {
  test("an API client gets JSON naming where the docs, console, MCP and probes are; each one answers", async () => {
    const reply = await server.request("GET", "/", { headers: { accept: "application/json" } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("vary")).toBe("Accept");
    expect(reply.body).toMatchObject({ service: "agentbank", version: "0.6.0" });
    expect(reply.body.links).toEqual({ apiReference: "/swagger", openapi: "/swagger/json", console: "/console", llms: "/llms.txt", mcp: "/mcp", health: "/health" });
    for (const path of Object.values(reply.body.links as Record<string, string>)) {
      const status = (await fetch(`${server.url}${path}`)).status;
      // /mcp wants an agent key: present, and it says so.
      expect({ path, status }).toEqual({ path, status: path === "/mcp" ? 401 : 200 });
    }
    // Without an Accept header (curl's */*) it is JSON too.
    expect((await fetch(`${server.url}/`)).headers.get("content-type")).toContain("application/json");
  });

  test("a browser gets a short page linking each of them", async () => {
    const reply = await fetch(`${server.url}/`, { headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await reply.text();
    for (const path of ["/swagger", "/swagger/json", "/console", "/llms.txt", "/mcp", "/health"]) expect(page).toContain(`href="${path}"`);
  });

  test("is in the OpenAPI document with its answer's schema", async () => {
    const document = (await server.request("GET", "/swagger/json")).body;
    const schema = document.paths["/"].get.responses["200"].content["application/json"].schema;
    expect(schema.required).toEqual(["service", "version", "description", "links"]);
  });
});
