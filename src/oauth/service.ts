// agentbank's own OAuth 2.1 authorization server for MCP hosts (docs/delegation.md, docs/security.md):
// dynamic client registration (public clients, PKCE S256 only), authorization codes the owner's
// consent issues, and tokens that are restricted keys. A grant is a restricted key never shown (the
// owner's scopes and budgets, 30 days); each access token is a one-hour key made from it, so every
// token's outflows count against the grant's budget and revoking the grant key revokes them all.
import { clock } from "../clock";
import { all, get, run, type Query } from "../db";
import { secret, sha256Hex, uuid } from "../ids";
import { createKey, findKey, keyChain, keyView, revokeKey, scopesOf, type KeyRow, type NewKey } from "../keys/service";
import { SCOPES, type Scope } from "../keys/scopes";
import { toMajor, type Currency } from "../money";
import { HOUR_MS, MINUTE_MS } from "../time";

export const ACCESS_TOKEN_LIFETIME_MS = HOUR_MS;
const CODE_LIFETIME_MS = 2 * MINUTE_MS;
/** Registration is open to anyone: bounded in count (besides the per-address rate limit) and in size. */
export const CLIENT_LIMITS = { clients: 10_000, redirectUris: 5, uriLength: 500, nameLength: 80 } as const;

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

export type ClientRow = { id: string; name: string; redirectUris: string };
export const redirectUrisOf = (client: ClientRow): string[] => JSON.parse(client.redirectUris);

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

export type ClientMetadata = { client_name?: string; redirect_uris: string[] };

/** A write op: registers a public client (RFC 7591). */
export function* registerClient(metadata: ClientMetadata): Query<ClientRow & { createdAt: bigint }> {
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
  return (yield* get<ClientRow & { createdAt: bigint }>(
    "INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?) RETURNING id, name, redirect_uris AS redirectUris, created_at AS createdAt",
    uuid(),
    name,
    JSON.stringify(uris),
    clock.nowMs(),
  ))!;
}

export function* findClient(id: string): Query<ClientRow | null> {
  return yield* get<ClientRow>("SELECT id, name, redirect_uris AS redirectUris FROM oauth_clients WHERE id = ?", id);
}

/** An authorization request, checked: what the consent page shows and the code is bound to. */
export type AuthorizationRequest = { client: ClientRow; redirectUri: string; codeChallenge: string; state: string | null; resource: string; scopes: Scope[] };

/** What the owner approved: scopes, and a total budget per currency in major units. */
export type Consent = { scopes: Scope[]; budgets: Partial<Record<Currency, number>> };

/** A write op: the code for an approved request (shown once, in the redirect). */
export function* issueCode(agentId: string, request: AuthorizationRequest, consent: Consent): Query<string> {
  const code = secret("oc_");
  yield* run(
    `INSERT INTO oauth_codes (code_hash, client_id, agent_id, redirect_uri, code_challenge, resource, scopes, budgets, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    sha256Hex(code),
    request.client.id,
    agentId,
    request.redirectUri,
    request.codeChallenge,
    request.resource,
    JSON.stringify(consent.scopes),
    JSON.stringify(consent.budgets),
    clock.nowMs() + CODE_LIFETIME_MS,
  );
  return code;
}

export type Tokens = { access_token: string; token_type: "Bearer"; expires_in: number; refresh_token: string; scope: string };
/** A refusal that must not roll back what the op did (a reused code revokes its grant). */
export type Refused = { refused: OAuthError };

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);
const pkceOf = (verifier: string) => new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

type CodeRow = {
  clientId: string;
  agentId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: string;
  budgets: string;
  expiresAt: bigint;
  usedAt: bigint | null;
  grantKeyId: string | null;
};

/** An access token (and a new refresh token) for the grant whose key this is. */
function* mint(grantKey: KeyRow, clientName: string): Query<{ accessToken: string; refreshToken: string }> {
  // The token's own budget is what the grant has left (the smallest unit once it is spent: a budget
  // is positive); the grant key above it counts every outflow anyway.
  const budgets: NonNullable<NewKey["budgets"]> = Object.create(null);
  for (const [currency, budget] of Object.entries((yield* keyView(grantKey)).budgets) as [Currency, { total: number | null; remaining: number | null }][]) {
    if (budget.total !== null) budgets[currency] = { total: budget.remaining || toMajor(1n, currency) };
  }
  const left = Number(grantKey.expiresAt) - clock.nowMs();
  const expiresInSeconds = Math.max(60, Math.floor(Math.min(ACCESS_TOKEN_LIFETIME_MS, left) / 1000));
  const { apiKey } = yield* createKey(grantKey.agentId, grantKey, { name: `${clientName} (access token)`, scopes: scopesOf(grantKey), budgets, expiresInSeconds });
  const refreshToken = secret("or_");
  yield* run("UPDATE oauth_grants SET refresh_token_hash = ? WHERE key_id = ?", sha256Hex(refreshToken), grantKey.id);
  return { accessToken: apiKey, refreshToken };
}

const tokensOf = ({ accessToken, refreshToken }: { accessToken: string; refreshToken: string }, grantKey: KeyRow): Tokens => ({
  access_token: accessToken,
  token_type: "Bearer",
  expires_in: Math.floor(ACCESS_TOKEN_LIFETIME_MS / 1000),
  refresh_token: refreshToken,
  scope: scopesOf(grantKey).join(" "),
});

export type CodeExchange = { clientId: string; code: string; codeVerifier: string; redirectUri: string; resource: string | undefined };

/** A write op: the authorization_code grant. A code works once; used again, the grant it made is revoked. */
export function* exchangeCode(asked: CodeExchange): Query<Tokens | Refused> {
  const code = yield* get<CodeRow>(
    `SELECT client_id AS clientId, agent_id AS agentId, redirect_uri AS redirectUri, code_challenge AS codeChallenge, resource, scopes, budgets,
            expires_at AS expiresAt, used_at AS usedAt, grant_key_id AS grantKeyId
     FROM oauth_codes WHERE code_hash = ?`,
    sha256Hex(asked.code),
  );
  if (!code || code.clientId !== asked.clientId) return { refused: invalidGrant("unknown code, or a code of another client") };
  if (code.usedAt !== null) {
    if (code.grantKeyId) yield* revokeKey(code.agentId, code.grantKeyId, null);
    return { refused: invalidGrant("this code was already used; the tokens it gave are revoked") };
  }
  if (Number(code.expiresAt) <= clock.nowMs()) return { refused: invalidGrant("the code expired; authorize again") };
  if (code.redirectUri !== asked.redirectUri) return { refused: invalidGrant("redirect_uri is not the one the code was issued for") };
  if (asked.resource !== undefined && asked.resource !== code.resource) return { refused: new OAuthError("invalid_target", "resource is not the one the owner authorized") };
  if (!PKCE_VERIFIER.test(asked.codeVerifier) || pkceOf(asked.codeVerifier) !== code.codeChallenge) return { refused: invalidGrant("code_verifier does not match the code_challenge") };
  const claimed = yield* get<{ codeHash: string }>("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL RETURNING code_hash AS codeHash", clock.nowMs(), sha256Hex(asked.code));
  if (!claimed) return { refused: invalidGrant("this code was already used") };
  const client = (yield* findClient(code.clientId))!;
  const budgets: NonNullable<NewKey["budgets"]> = Object.create(null);
  for (const [currency, total] of Object.entries(JSON.parse(code.budgets) as Record<string, number>)) budgets[currency] = { total };
  const { row: grantKey } = yield* createKey(code.agentId, null, { name: `MCP host: ${client.name}`, scopes: JSON.parse(code.scopes), budgets });
  yield* run("INSERT INTO oauth_grants (key_id, client_id, resource, refresh_token_hash, created_at) VALUES (?, ?, ?, ?, ?)", grantKey.id, client.id, code.resource, sha256Hex(secret("")), clock.nowMs());
  yield* run("UPDATE oauth_codes SET grant_key_id = ? WHERE code_hash = ?", grantKey.id, sha256Hex(asked.code));
  return tokensOf(yield* mint(grantKey, client.name), grantKey);
}

/** A write op: the refresh_token grant, within the grant (its scopes, budget and lifetime); the refresh token is rotated. */
export function* refreshGrant(asked: { clientId: string; refreshToken: string; resource: string | undefined }): Query<Tokens | Refused> {
  const grant = yield* get<{ keyId: string; clientId: string; resource: string }>(
    "SELECT key_id AS keyId, client_id AS clientId, resource FROM oauth_grants WHERE refresh_token_hash = ?",
    sha256Hex(asked.refreshToken),
  );
  if (!grant || grant.clientId !== asked.clientId) return { refused: invalidGrant("unknown refresh token (refresh tokens work once), or one of another client") };
  if (asked.resource !== undefined && asked.resource !== grant.resource) return { refused: new OAuthError("invalid_target", "resource is not the one the owner authorized") };
  const grantKey = (yield* findKey(grant.keyId))!;
  if (grantKey.revokedAt !== null || Number(grantKey.expiresAt) <= clock.nowMs()) return { refused: invalidGrant("the grant was revoked or expired; authorize again") };
  const client = (yield* findClient(grant.clientId))!;
  return tokensOf(yield* mint(grantKey, client.name), grantKey);
}

/** The resource a restricted key was issued for through OAuth, or null: a key made at /agents/me/keys (any resource). */
export function* resourceOfKey(key: KeyRow): Query<string | null> {
  const ids = (yield* keyChain(key.id)).map((row) => row.id);
  const grants = yield* all<{ resource: string }>(`SELECT resource FROM oauth_grants WHERE key_id IN (${ids.map(() => "?").join(", ")})`, ...ids);
  return grants[0]?.resource ?? null;
}

/** The scopes an authorization request names (space-separated), all of them when it names none; null: one is unknown. */
export function requestedScopes(scope: string | undefined): Scope[] | null {
  if (!scope?.trim()) return [...SCOPES];
  const asked = [...new Set(scope.trim().split(/\s+/))];
  return asked.every((name) => (SCOPES as readonly string[]).includes(name)) ? (asked as Scope[]) : null;
}

