// An MCP host's side of agentbank's OAuth over plain HTTP: register, send the owner to the consent page
// (here the console over HTTP with a session cookie, test/helpers/console.ts; test/mcp-oauth.test.ts
// drives Chromium instead), exchange the code, refresh, and call /mcp with the token.
import { TOOLS } from "../../src/mcp/tools";
import { formsOf, getPage, postForm } from "./console";
import type { TestServer } from "./server";

export const pkceOf = async (verifier: string) => Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString("base64url");

/** POST /oauth/token with a form. */
export const tokenRequest = (server: TestServer, form: Record<string, string>) =>
  fetch(`${server.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });

/** POST /oauth/register; the answer as fetch gives it. */
export const registerClient = (server: TestServer, redirectUris: string[], name = "HTTP host") =>
  fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }) });

export type Host = { clientId: string; redirectUri: string };
export type AuthorizationParams = Record<string, string>;

/** The parameters of a sound authorization request of `host` (PKCE with `verifier`), with `changes` (a value undefined: left out). */
export async function authorizationParams(server: TestServer, host: Host, verifier: string, changes: Record<string, string | undefined> = {}): Promise<AuthorizationParams> {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: host.clientId,
    redirect_uri: host.redirectUri,
    code_challenge: await pkceOf(verifier),
    code_challenge_method: "S256",
    state: "state-7",
    resource: `${server.url}/mcp`,
    scope: "read pay",
    ...changes,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export const query = (params: AuthorizationParams) => new URLSearchParams(params).toString();

/**
 * The owner's decision on the consent page of `params` (signed in: `cookie`), as the browser would send
 * it: `approve` with the ticked scopes and budgets, or `deny`. The answer, not followed.
 */
export async function decide(server: TestServer, cookie: string, params: AuthorizationParams, decision: "approve" | "deny", scopes: string[] = ["read"], budgets: Record<string, string> = {}) {
  const page = await getPage(server, `/console/oauth/consent?${query(params)}`, cookie);
  const form = formsOf(page.html).find((candidate) => candidate.action === "/console/oauth/consent");
  if (!form) throw new Error(`no consent form: ${page.status} ${page.html.slice(0, 500)}`);
  // The boxes as the owner ticks them: the page ticks only read.
  const fields = form.fields
    .filter(([name]) => !name.startsWith("scope_"))
    .map(([name, value]): [string, string] => [name, name.startsWith("budget_") ? (budgets[name.slice("budget_".length)] ?? "") : value]);
  const ticked = scopes.filter((scope) => page.html.includes(`name="scope_${scope}"`)).map((scope): [string, string] => [`scope_${scope}`, "1"]);
  return postForm(server, "/console/oauth/consent", [...fields, ...ticked, ["decision", decision]], cookie);
}

export type TokenPair = { access_token: string; refresh_token: string; scope: string };

/** A grant for `host` with the owner's approval (`scopes`, `budgets`): the first token pair. */
export async function grantOverHttp(server: TestServer, cookie: string, host: Host, scopes: string[] = ["read"], budgets: Record<string, string> = {}): Promise<TokenPair> {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const params = await authorizationParams(server, host, verifier, { scope: scopes.join(" ") });
  const answer = await decide(server, cookie, params, "approve", scopes, budgets);
  const code = new URL(answer.headers.get("location")!).searchParams.get("code");
  if (!code) throw new Error(`no code: ${answer.status} ${answer.headers.get("location")}`);
  const exchanged = await tokenRequest(server, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: host.redirectUri, client_id: host.clientId, resource: `${server.url}/mcp` });
  if (exchanged.status !== 200) throw new Error(`exchange failed: ${exchanged.status} ${await exchanged.text()}`);
  return (await exchanged.json()) as TokenPair;
}

/** A refresh of `host`'s grant with `refreshToken`, at `server` (an instance). */
export const refresh = (server: TestServer, host: Host, refreshToken: string) => tokenRequest(server, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: host.clientId });

/** One JSON-RPC request to /mcp at `url` with the token. */
export const mcpRequest = (url: string, accessToken: string, method: string, params?: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

/** A tool call at `server`'s /mcp: its result (`isError`, the text of its content). */
export async function callTool(server: TestServer, accessToken: string, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const answer = await mcpRequest(`${server.url}/mcp`, accessToken, "tools/call", { name, arguments: args });
  if (answer.status !== 200) throw new Error(`tools/call answered ${answer.status}: ${await answer.text()}`);
  const { result } = (await answer.json()) as { result: { isError?: boolean; content: { text: string }[] } };
  return { isError: result.isError === true, text: result.content.map((part) => part.text).join("\n") };
}

/** A tool call at `server`'s /mcp as the API answered it: 200 with the tool's structured answer, or the tool error's code and message. */
export async function toolReply(server: TestServer, accessToken: string, name: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const answer = await mcpRequest(`${server.url}/mcp`, accessToken, "tools/call", { name, arguments: args });
  if (answer.status !== 200) return { status: answer.status, body: { error: answer.status === 401 ? "UNAUTHORIZED" : `HTTP_${answer.status}` } };
  const { result } = (await answer.json()) as { result: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] } };
  if (!result.isError) return { status: 200, body: result.structuredContent };
  const [code, ...message] = result.content[0]!.text.split(": ");
  return { status: 400, body: { error: code, message: message.join(": ") } };
}

/** The MCP tool of a route, and its arguments (path parameters and body in one object). */
export function toolFor(method: string, path: string, body: Record<string, unknown>): [string, Record<string, unknown>] {
  for (const tool of TOOLS) {
    if (tool.method !== method) continue;
    const names: string[] = [];
    const pattern = new RegExp(`^${tool.path.replace(/:(\w+)/g, (_, name: string) => (names.push(name), "([^/]+)"))}$`);
    const match = pattern.exec(path);
    if (match) return [tool.name, { ...Object.fromEntries(names.map((name, i) => [name, match[i + 1]])), ...body }];
  }
  throw new Error(`no MCP tool for ${method} ${path}`);
}
