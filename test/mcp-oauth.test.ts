// An MCP host connects with the owner's consent (issue 26): the official MCP SDK client discovers the
// authorization server from /mcp's 401, registers itself, sends the owner (headless Chromium) to the
// consent page in the console, gets a code on a loopback redirect, and works with the token it gets: a
// restricted key with the scopes and budget the owner chose. Codes are single-use and PKCE-bound;
// tokens are bound to the resource, /mcp, and refused at every other route (issue 32). The bounds of
// registration, refresh and the authorization request: test/mcp-oauth-bounds.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser } from "playwright-core";
import { haveBrowser, launchBrowser } from "./helpers/browser";
import { expectLedgerOk } from "./helpers/ledger";
import { callTool, mcpRequest, pkceOf, tokenRequest } from "./helpers/oauth";
import { startServer, type Agent, type TestServer } from "./helpers/server";

setDefaultTimeout(120_000);

let server: TestServer;
let browser: Browser;
let owner: Agent;
let payee: Agent;
let callback: ReturnType<typeof Bun.serve>;
let redirectUrl: string;

/** The owner in the browser: signs in if asked, ticks `scopes`, sets a USDC budget, approves; the code from the loopback redirect. */
async function consent(authorizationUrl: string, scopes: string[], budget: string): Promise<{ code: string; state: string | null }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    if (await page.locator("#ownerKey").count()) {
      await page.fill("#ownerKey", owner.ownerKey);
      await page.click("form[action='/console/login'] button[type=submit]");
    }
    await page.waitForSelector("form[action='/console/oauth/consent']");
    expect(await page.textContent("#redirect-uri")).toBe(redirectUrl);
    expect(await page.textContent("main")).toContain("Test MCP host");
    expect(await page.textContent("#budget-rule")).toContain("it may spend only the currencies you give a budget");
    for (const scope of scopes) await page.check(`input[name=scope_${scope}]`);
    await page.fill("input[name=budget_USDC]", budget);
    await page.click("button[value=approve]");
    await page.waitForURL((url) => url.pathname === "/callback");
    const url = new URL(page.url());
    return { code: url.searchParams.get("code")!, state: url.searchParams.get("state") };
  } finally {
    await context.close();
  }
}

/** An MCP host's OAuth state, kept in memory; the owner's consent happens in redirectToAuthorization. */
class HostProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  code: string | null = null;
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test MCP host", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state = () => "state-42";
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
  async redirectToAuthorization(url: URL) {
    const answer = await consent(url.href, ["pay"], "10");
    expect(answer.state).toBe("state-42");
    this.code = answer.code;
  }
}

const token = (form: Record<string, string>) => tokenRequest(server, form);
const mcpList = (url: string, accessToken: string) => mcpRequest(url, accessToken, "tools/list");

(haveBrowser ? describe : describe.skip)("an MCP host connects with the owner's consent", () => {
  const host = new HostProvider();

  beforeAll(async () => {
    callback = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<p>You may close this window.</p>", { headers: { "content-type": "text/html" } }) });
    redirectUrl = `http://127.0.0.1:${callback.port}/callback`;
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    owner = await server.register();
    payee = await server.register();
    await server.deposit(owner.id, 100);
  });
  afterAll(async () => {
    await browser?.close();
    callback?.stop(true);
    await server?.close();
  });

  test("/mcp without a token: 401 naming the protected resource metadata, which names the authorization server", async () => {
    const answer = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json();
    expect(metadata).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });
    const as = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({ issuer: server.url, code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"] });
  });

  test("the SDK client completes the flow, sees only the granted tools, pays within the budget and is refused past it", async () => {
    const first = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: host });
    const unauthorized = await new Client({ name: "host", version: "1.0.0" }).connect(first).catch((error) => error);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(host.code).toBeTruthy();
    await first.finishAuth(host.code!);
    expect(host.saved?.access_token).toStartWith("pp_r_");
    expect(host.saved?.scope).toBe("read pay");

    const client = new Client({ name: "host", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: host }));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("get_balances");
      expect(names).toContain("send_payment");
      expect(names).not.toContain("set_webhook");
      expect(names).not.toContain("withdraw");
      const paid = (await client.callTool({ name: "send_payment", arguments: { toAgentId: payee.id, amount: 6, currency: "USDC" } })) as { isError?: boolean; content: { text: string }[] };
      expect(paid.isError).toBeFalsy();
      const refused = (await client.callTool({ name: "send_payment", arguments: { toAgentId: payee.id, amount: 6, currency: "USDC" } })) as { isError?: boolean; content: { text: string }[] };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain("KEY_BUDGET_EXCEEDED");
    } finally {
      await client.close();
    }
    expect(await server.balance(payee)).toMatchObject({ available: 6 });
  });

  test("a refresh gives a new token within the grant", async () => {
    const old = host.saved!;
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: old.refresh_token!, client_id: host.client!.client_id, resource: `${server.url}/mcp` });
    expect(refreshed.status).toBe(200);
    const tokens = (await refreshed.json()) as OAuthTokens;
    expect(tokens.refresh_token).not.toBe(old.refresh_token);
    expect((await mcpList(`${server.url}/mcp`, tokens.access_token)).status).toBe(200);
    // The budget is the grant's: 4 USDC left of 10, whichever token spends it.
    const paid = await callTool(server, tokens.access_token, "send_payment", { toAgentId: payee.id, amount: 5, currency: "USDC" });
    expect(paid).toMatchObject({ isError: true });
    expect(paid.text).toContain("KEY_BUDGET_EXCEEDED");
    host.saved = tokens;
  });

  test("the token works only at /mcp, the resource it was issued for: every other route answers 401 saying so, and nothing moves", async () => {
    const { access_token } = host.saved!;
    const read = await server.request("GET", "/wallets/balance", { key: access_token });
    expect(read.status).toBe(401);
    expect(read.body).toMatchObject({ error: "UNAUTHORIZED" });
    expect(read.body.message).toContain(`issued to an MCP host for ${server.url}/mcp`);
    expect(read.headers.get("www-authenticate")).toBe(`Bearer error="invalid_token", error_description="this token is for ${server.url}/mcp"`);
    expect((await server.request("GET", "/agents/me/keys/current", { key: access_token })).status).toBe(401);
    const before = await server.balance(payee);
    const pay = await server.request("POST", "/payments/send", { key: access_token, body: { toAgentId: payee.id, amount: 1, currency: "USDC" } });
    expect(pay.status).toBe(401);
    expect(await server.balance(payee)).toEqual(before);
    // At /mcp its tools call those same routes for it.
    expect(await callTool(server, access_token, "get_balances", {})).toMatchObject({ isError: false });
  });

  // Budgets fail closed (src/outflows/budget.ts): a key with any budget refuses a currency it has none for.
  test("a grant with a USDC budget cannot pay USD: the consent named USDC only", async () => {
    await server.deposit(owner.id, 100, "USD");
    const paid = await callTool(server, host.saved!.access_token, "send_payment", { toAgentId: payee.id, amount: 50, currency: "USD" });
    expect(paid.isError).toBe(true);
    expect(paid.text).toStartWith("KEY_BUDGET_EXCEEDED: this key has a budget only in USDC");
    expect(await server.balance(payee, "USD")).toEqual({ available: 0, held: 0 });
  });

  test("a token is refused at /mcp under another resource (another name of the service)", async () => {
    const other = `${server.url.replace("127.0.0.1", "localhost")}/mcp`;
    const answer = await mcpList(other, host.saved!.access_token);
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await mcpList(`${server.url}/mcp`, host.saved!.access_token)).status).toBe(200);
  });

  test("a wrong PKCE verifier and a reused code are refused; the reuse revokes what the code gave", async () => {
    const verifier = "v".repeat(50);
    const url = new URL(`${server.url}/oauth/authorize`);
    const params = { response_type: "code", client_id: host.client!.client_id, redirect_uri: redirectUrl, code_challenge: await pkceOf(verifier), code_challenge_method: "S256", state: "s2", resource: `${server.url}/mcp`, scope: "read" };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const { code } = await consent(url.href, [], "1");
    const exchange = (codeVerifier: string) => token({ grant_type: "authorization_code", code, code_verifier: codeVerifier, redirect_uri: redirectUrl, client_id: host.client!.client_id, resource: `${server.url}/mcp` });

    const wrong = await exchange("w".repeat(50));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    const right = await exchange(verifier);
    expect(right.status).toBe(200);
    const { access_token } = (await right.json()) as OAuthTokens;
    expect((await mcpList(`${server.url}/mcp`, access_token)).status).toBe(200);

    const reused = await exchange(verifier);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });
    expect((await mcpList(`${server.url}/mcp`, access_token)).status).toBe(401);
  });

  test("an authorization request for another resource is refused on agentbank's own page, not sent to the client", async () => {
    const url = new URL(`${server.url}/oauth/authorize`);
    const params = { response_type: "code", client_id: host.client!.client_id, redirect_uri: redirectUrl, code_challenge: await pkceOf("x".repeat(50)), code_challenge_method: "S256", state: "s3", resource: "https://elsewhere.example/mcp" };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const answer = await fetch(url, { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
    expect(await answer.text()).toContain("invalid_target");
  });

  test("the ledger is consistent", async () => {
    await expectLedgerOk(server);
  });
});
