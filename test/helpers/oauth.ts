// An MCP host's OAuth grant over plain HTTP (no browser): register the client, send the owner through
// /oauth/authorize to the console's consent form (signed in with the owner key), approve it with the
// scopes and budgets given, exchange the code; tools called over /mcp with the access token.
import { formsOf, getPage, postForm, signIn } from "./console";
import type { TestServer } from "./server";

export type OAuthGrant = { accessToken: string; refreshToken: string; clientId: string };

const REDIRECT = "http://127.0.0.1:9/callback";

const pkce = () => {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  return { verifier, challenge: new Bun.CryptoHasher("sha256").update(verifier).digest("base64url") };
};

async function token(server: TestServer, fields: Record<string, string>): Promise<OAuthGrant & Record<string, unknown>> {
  const response = await fetch(`${server.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
  const body = (await response.json()) as Record<string, string>;
  if (response.status !== 200) throw new Error(`token: ${response.status} ${JSON.stringify(body)}`);
  return { accessToken: body.access_token!, refreshToken: body.refresh_token!, clientId: fields.client_id! };
}

/** The owner of `ownerKey` grants an MCP host `scopes` with a total `budgets` per currency (major units); its first tokens. */
export async function oauthGrant(server: TestServer, ownerKey: string, scopes: string[], budgets: Record<string, number>): Promise<OAuthGrant> {
  const registered = await server.request("POST", "/oauth/register", { body: { client_name: "credential test host", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" } });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const clientId: string = registered.body.client_id;
  const { verifier, challenge } = pkce();
  const resource = `${server.url}/mcp`;
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s", scope: scopes.join(" "), resource });
  const authorize = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: "manual" });
  const consentPath = authorize.headers.get("location")!.replace(server.url, "");
  const session = await signIn(server, ownerKey);
  const form = formsOf((await getPage(server, consentPath, session)).html).find((candidate) => candidate.action === "/console/oauth/consent")!;
  const ticked: [string, string][] = [...form.fields, ...scopes.map((scope): [string, string] => [`scope_${scope}`, "1"]), ...Object.entries(budgets).map(([currency, total]): [string, string] => [`budget_${currency}`, String(total)]), ["decision", "approve"]];
  const decided = await postForm(server, "/console/oauth/consent", ticked, session);
  const code = new URL(decided.headers.get("location")!).searchParams.get("code");
  if (!code) throw new Error(`consent: ${decided.status} ${decided.headers.get("location")}`);
  return token(server, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource });
}

/** A new pair of tokens for the grant (the refresh token is rotated). */
export const refreshGrant = (server: TestServer, grant: OAuthGrant) =>
  token(server, { grant_type: "refresh_token", refresh_token: grant.refreshToken, client_id: grant.clientId, resource: `${server.url}/mcp` });

/** A tool call over /mcp with `bearer`: a 2xx-like reply with the tool's structured answer, or the tool error's code. */
export async function callTool(server: TestServer, bearer: string, name: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  if (response.status !== 200) return { status: response.status, body: { error: response.status === 401 ? "UNAUTHORIZED" : `HTTP_${response.status}` } };
  const reply = (await response.json()) as { result?: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] }; error?: { message: string } };
  if (!reply.result) return { status: 400, body: { error: "JSONRPC_ERROR", message: reply.error?.message } };
  if (!reply.result.isError) return { status: 200, body: reply.result.structuredContent };
  const [code, ...rest] = reply.result.content[0]!.text.split(": ");
  return { status: 400, body: { error: code, message: rest.join(": ") } };
}
