// MCP hosts registered by dynamic client registration (RFC 7591): public clients, PKCE only, no secret,
// each with the exact redirect URIs it may use. Registration is open to anyone, so it is bounded in
// count and size, and refuses metadata this server cannot honour.
import { clock } from "../clock";
import { get, insert, type Query, type Row } from "../db";
import { uuid } from "../ids";
import { oauthClients } from "./schema";

/** A refusal in OAuth's own terms (RFC 6749 §5.2, RFC 7591 §3.2.2): `error` is OAuth's code. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export type ClientRow = Row<typeof oauthClients>;
export const redirectUrisOf = (client: ClientRow): string[] => JSON.parse(client.redirectUris);

/** Registration is open to anyone: bounded in count (besides the per-address rate limit) and in size. */
export const CLIENT_LIMITS = { clients: 10_000, redirectUris: 5, uriLength: 500, nameLength: 80 } as const;
const GRANT_TYPES = ["authorization_code", "refresh_token"];
const RESPONSE_TYPES = ["code"];

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Why a redirect URI is refused, or null: https anywhere, http only to this machine, no fragment. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > CLIENT_LIMITS.uriLength) return `a redirect URI is at most ${CLIENT_LIMITS.uriLength} characters`;
  const url = URL.parse(uri);
  if (!url) return `"${uri.slice(0, 100)}" is not a URL`;
  if (url.hash || uri.includes("#")) return "a redirect URI has no fragment (#…)";
  if (url.username || url.password) return "a redirect URI has no user name or password";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "a redirect URI is https, or http to a loopback address (127.0.0.1, [::1], localhost)";
}

/** What a client sends (RFC 7591 §2); metadata the server does not use is ignored, not refused. */
export type ClientMetadata = { client_name?: string; redirect_uris: string[]; grant_types?: string[]; response_types?: string[]; token_endpoint_auth_method?: string };

const unsupported = (field: string, values: string[] | undefined, allowed: string[]) => {
  const extra = (values ?? []).filter((value) => !allowed.includes(value));
  return extra.length ? new OAuthError("invalid_client_metadata", `${field}: only ${allowed.join(", ")} (not ${extra.join(", ")})`) : null;
};

/** A write op: registers a public client (RFC 7591). */
export function* registerClient(metadata: ClientMetadata): Query<ClientRow> {
  if (metadata.token_endpoint_auth_method !== undefined && metadata.token_endpoint_auth_method !== "none") {
    throw new OAuthError("invalid_client_metadata", "token_endpoint_auth_method: only none (public clients with PKCE)");
  }
  const refusal = unsupported("grant_types", metadata.grant_types, GRANT_TYPES) ?? unsupported("response_types", metadata.response_types, RESPONSE_TYPES);
  if (refusal) throw refusal;
  const uris = [...new Set(metadata.redirect_uris)];
  if (uris.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris: at least one");
  if (uris.length > CLIENT_LIMITS.redirectUris) throw new OAuthError("invalid_redirect_uri", `redirect_uris: at most ${CLIENT_LIMITS.redirectUris}`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  const count = (yield* get<{ count: bigint }>("SELECT COUNT(*) AS count FROM oauth_clients"))!.count;
  if (count >= BigInt(CLIENT_LIMITS.clients)) throw new OAuthError("temporarily_unavailable", "this service has registered as many clients as it takes; ask its operator", 503);
  const name = (metadata.client_name ?? "").trim() || "unnamed MCP host";
  return yield* insert(oauthClients, { id: uuid(), name, redirectUris: JSON.stringify(uris), createdAt: clock.nowMs() });
}

/** The registered client as RFC 7591 §3.2.1 answers it. */
export const registeredClientView = (client: ClientRow) => ({
  client_id: client.id,
  client_name: client.name,
  redirect_uris: redirectUrisOf(client),
  grant_types: GRANT_TYPES,
  response_types: RESPONSE_TYPES,
  token_endpoint_auth_method: "none" as const,
  client_id_issued_at: Math.floor(Number(client.createdAt) / 1000),
});
