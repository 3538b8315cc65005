// agentbank's own OAuth 2.1 authorization server for MCP hosts (docs/delegation.md, docs/security.md):
// authorization codes the owner's consent issues, and tokens that are restricted keys (the clients
// register in oauth/clients.ts). A grant is a restricted key never shown (the owner's scopes and
// budgets, 30 days); each access token is a one-hour key made from it, so every token's outflows count
// against the grant's budget and revoking the grant key revokes them all.
import { findAgent } from "../agents/service";
import { clock } from "../clock";
import { find, insert, run, select, type Query } from "../db";
import { secret, sha256Hex } from "../ids";
import { createKey, type NewKey } from "../keys/create";
import { agentKeys } from "../keys/schema";
import { SCOPES, type Scope } from "../keys/scopes";
import { keyChain, keyView, revokeKey, scopesOf, type KeyRow } from "../keys/service";
import { toMajor, type Currency } from "../money";
import { HOUR_MS, MINUTE_MS } from "../time";
import { OAuthError, type ClientRow } from "./clients";
import { oauthClients, oauthCodes, oauthGrants } from "./schema";

export const ACCESS_TOKEN_LIFETIME_MS = HOUR_MS;
const CODE_LIFETIME_MS = 2 * MINUTE_MS;

/** An authorization request, checked: what the consent page shows and the code is bound to. */
export type AuthorizationRequest = { client: ClientRow; redirectUri: string; codeChallenge: string; state: string | null; resource: string; scopes: Scope[] };

/** What the owner approved: scopes, and a total budget per currency in major units. */
export type Consent = { scopes: Scope[]; budgets: Partial<Record<Currency, number>> };

/** A write op: the code for an approved request (shown once, in the redirect). */
export function* issueCode(agentId: string, request: AuthorizationRequest, consent: Consent): Query<string> {
  const code = secret("oc_");
  const agent = (yield* findAgent(agentId))!;
  yield* insert(oauthCodes, {
    codeHash: sha256Hex(code),
    clientId: request.client.id,
    agentId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scopes: JSON.stringify(consent.scopes),
    budgets: JSON.stringify(consent.budgets),
    madeWith: agent.ownerKeyHash,
    expiresAt: clock.nowMs() + CODE_LIFETIME_MS,
  });
  return code;
}

export type Tokens = { access_token: string; token_type: "Bearer"; expires_in: number; refresh_token: string; scope: string };
/** A refusal that must not roll back what the op did (a reused code revokes its grant). */
export type Refused = { refused: OAuthError };

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);
const pkceOf = (verifier: string) => new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

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
  const { apiKey } = yield* createKey(grantKey.agentId, { parent: grantKey }, { name: `${clientName} (access token)`, scopes: scopesOf(grantKey), budgets, expiresInSeconds }, "oauth_token");
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
  const codeHash = sha256Hex(asked.code);
  const [code] = yield* select(oauthCodes, "code_hash = ?", codeHash);
  if (!code || code.clientId !== asked.clientId) return { refused: invalidGrant("unknown code, or a code of another client") };
  if (code.usedAt !== null) {
    if (code.grantKeyId) yield* revokeKey(code.agentId, code.grantKeyId, null);
    return { refused: invalidGrant("this code was already used; the tokens it gave are revoked") };
  }
  if (code.expiresAt <= clock.nowMs()) return { refused: invalidGrant("the code expired; authorize again") };
  if (code.redirectUri !== asked.redirectUri) return { refused: invalidGrant("redirect_uri is not the one the code was issued for") };
  if (asked.resource !== undefined && asked.resource !== code.resource) return { refused: new OAuthError("invalid_target", "resource is not the one the owner authorized") };
  if (!PKCE_VERIFIER.test(asked.codeVerifier) || pkceOf(asked.codeVerifier) !== code.codeChallenge) return { refused: invalidGrant("code_verifier does not match the code_challenge") };
  // Claimed only if no concurrent exchange claimed it first.
  if ((yield* run("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL", clock.nowMs(), codeHash)) === 0) return { refused: invalidGrant("this code was already used") };
  const client = (yield* find(oauthClients, code.clientId))!;
  const budgets: NonNullable<NewKey["budgets"]> = Object.create(null);
  for (const [currency, total] of Object.entries(JSON.parse(code.budgets) as Record<string, number>)) budgets[currency] = { total };
  // Made as the owner key that consented: rotating it revokes the grant and its tokens.
  const { row: grantKey } = yield* createKey(code.agentId, { madeWith: code.madeWith }, { name: `MCP host: ${client.name}`, scopes: JSON.parse(code.scopes), budgets }, "oauth_grant");
  yield* insert(oauthGrants, { keyId: grantKey.id, clientId: client.id, resource: code.resource, refreshTokenHash: sha256Hex(secret("")), createdAt: clock.nowMs() });
  yield* run("UPDATE oauth_codes SET grant_key_id = ? WHERE code_hash = ?", grantKey.id, codeHash);
  return tokensOf(yield* mint(grantKey, client.name), grantKey);
}

/** A write op: the refresh_token grant, within the grant (its scopes, budget and lifetime); the refresh token is rotated. */
export function* refreshGrant(asked: { clientId: string; refreshToken: string; resource: string | undefined }): Query<Tokens | Refused> {
  const [grant] = yield* select(oauthGrants, "refresh_token_hash = ?", sha256Hex(asked.refreshToken));
  if (!grant || grant.clientId !== asked.clientId) return { refused: invalidGrant("unknown refresh token (refresh tokens work once), or one of another client") };
  if (asked.resource !== undefined && asked.resource !== grant.resource) return { refused: new OAuthError("invalid_target", "resource is not the one the owner authorized") };
  const grantKey = (yield* find(agentKeys, grant.keyId))!;
  if (grantKey.revokedAt !== null || grantKey.expiresAt <= clock.nowMs()) return { refused: invalidGrant("the grant was revoked or expired; authorize again") };
  const client = (yield* find(oauthClients, grant.clientId))!;
  return tokensOf(yield* mint(grantKey, client.name), grantKey);
}

/** The resource a restricted key was issued for through OAuth, or null: a key made at /agents/me/keys (any resource). */
export function* resourceOfKey(key: KeyRow): Query<string | null> {
  const ids = (yield* keyChain(key.id)).map((row) => row.id);
  const grants = yield* select(oauthGrants, `key_id IN (${ids.map(() => "?").join(", ")})`, ...ids);
  return grants[0]?.resource ?? null;
}

/** The scopes an authorization request names (space-separated), all of them when it names none; null: one is unknown. */
export function requestedScopes(scope: string | undefined): Scope[] | null {
  if (!scope?.trim()) return [...SCOPES];
  const asked = [...new Set(scope.trim().split(/\s+/))];
  return asked.every((name) => (SCOPES as readonly string[]).includes(name)) ? (asked as Scope[]) : null;
}

