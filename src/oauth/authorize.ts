// The authorization request (GET /oauth/authorize, then the consent page in the owner console): checked
// the same way at each step. Any problem with it is shown on agentbank's own page and never sent to the
// redirect URI, even a registered one (RFC 9700 §4.11.2): anyone may register a client or publish a
// metadata document, so a redirect URI is not trusted before the owner has seen, on the consent page,
// where the browser goes next. The browser goes there only with the owner's decision: a code, or
// `error=access_denied`, each with `iss` (RFC 9207).
import { t } from "elysia";
import { find, read } from "../db";
import { applyClientDue, redirectUriProblem, redirectUrisOf } from "./clients";
import { documentClient, DocumentRefused, isDocumentClientId, type AskingClient } from "./documents";
import { oauthClients } from "./schema";
import { requestedScopes, type AuthorizationRequest } from "./service";

const Param = t.Optional(t.String({ maxLength: 1000 }));
/** The query of an authorization request; the consent form sends the same fields back. */
export const AuthorizationQuery = t.Object({
  response_type: Param,
  client_id: Param,
  redirect_uri: Param,
  code_challenge: Param,
  code_challenge_method: Param,
  state: Param,
  scope: Param,
  resource: Param,
  prompt: Param,
});
export type AuthorizationParams = Partial<Record<"response_type" | "client_id" | "redirect_uri" | "code_challenge" | "code_challenge_method" | "state" | "scope" | "resource" | "prompt", string>>;
export const AUTHORIZATION_FIELDS = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "scope", "resource"] as const;

/** The service's own address as the caller reached it (the proxy's scheme when it says https). */
export function baseUrlOf(request: Request): string {
  const url = new URL(request.url);
  if (request.headers.get("x-forwarded-proto") === "https") url.protocol = "https:";
  return url.origin;
}
/** The one protected resource: the MCP endpoint. */
export const mcpResourceOf = (base: string) => `${base}/mcp`;

/**
 * Where the owner's decision goes: the client's redirect URI with `params`, the request's state and
 * this server's issuer identifier (RFC 9207: so a host talking to several servers knows which answered).
 */
export function redirectTo(asked: AuthorizationRequest, params: Record<string, string>): Response {
  const url = new URL(asked.redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (asked.state) url.searchParams.set("state", asked.state);
  url.searchParams.set("iss", asked.issuer);
  return new Response(null, { status: 303, headers: { location: url.href, "cache-control": "no-store" } });
}

/** The checked request, or why it is refused (the text of agentbank's own error page). */
export type Checked = { ok: AuthorizationRequest } | { page: string };

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** A client_id this service could have issued (a UUID): anything else is unknown without a query. */
export const issuedClientId = (clientId: string | undefined) => (clientId !== undefined && /^[0-9a-f-]{36}$/.test(clientId) ? clientId : null);

/** Before an authorization request is checked: its client deleted now if it is due, so it answers as unknown. */
export async function applyRequestedClientDue(params: AuthorizationParams): Promise<void> {
  const clientId = issuedClientId(params.client_id);
  if (clientId) await applyClientDue(clientId);
}

const UNKNOWN_CLIENT = "Unknown client_id: the application must register first (POST /oauth/register) or name its metadata document (an https URL).";

/** The client an authorization request names (applyRequestedClientDue first), or the text of the page that refuses it. */
async function askingClient(clientId: string | undefined): Promise<AskingClient | string> {
  if (clientId !== undefined && isDocumentClientId(clientId)) {
    try {
      return await documentClient(clientId);
    } catch (error) {
      if (error instanceof DocumentRefused) return `The application's client_id metadata document (${clientId.slice(0, 200)}) cannot be used: ${error.message}. Nothing was sent back to it; tell its maker.`;
      throw error;
    }
  }
  const id = issuedClientId(clientId);
  const row = id ? await read(find(oauthClients, id)) : null;
  return row ? { id: row.id, name: row.name, redirectUris: redirectUrisOf(row), documentHost: null } : UNKNOWN_CLIENT;
}

/** The authorization request checked (applyRequestedClientDue first), or the page that refuses it; `base` is this server's issuer. */
export async function checkAuthorization(params: AuthorizationParams, base: string): Promise<Checked> {
  const client = await askingClient(params.client_id);
  if (typeof client === "string") return { page: client };
  if (!params.redirect_uri || !client.redirectUris.includes(params.redirect_uri)) {
    return { page: client.documentHost ? "redirect_uri is not one the application's metadata document lists." : "redirect_uri is not one the application registered." };
  }
  // A document's redirect URIs are its host's word alone: held to the rules a registration is.
  const uriProblem = redirectUriProblem(params.redirect_uri);
  if (uriProblem) return { page: `redirect_uri is refused: ${uriProblem}.` };
  const refused = (error: string, description: string) => ({ page: `The application's request is refused (${error}: ${description}). Nothing was sent back to it; tell its maker.` });
  if (params.response_type !== "code") return refused("unsupported_response_type", "response_type must be code");
  if (params.code_challenge_method !== "S256" || !S256_CHALLENGE.test(params.code_challenge ?? "")) return refused("invalid_request", "PKCE is required: code_challenge (S256, 43 characters) and code_challenge_method=S256");
  const resource = mcpResourceOf(base);
  if (params.resource !== resource) return refused("invalid_target", `resource must be ${resource}, the MCP endpoint (RFC 8707)`);
  const scopes = requestedScopes(params.scope);
  if (!scopes) return refused("invalid_scope", "scope names a scope this service does not have");
  return { ok: { client, redirectUri: params.redirect_uri, codeChallenge: params.code_challenge!, state: params.state ?? null, resource, scopes, issuer: base } };
}
