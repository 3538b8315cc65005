// agentbank's own OAuth 2.1 authorization server for MCP hosts (docs/delegation.md, docs/security.md):
// authorization codes the owner's consent issues, and tokens that are restricted keys (the clients
// register in oauth/clients.ts). A grant is a restricted key never shown (the owner's scopes and
// budgets, 30 days); each access token is a one-hour key made from it, so every token's outflows count
// against the grant's budget and revoking the grant key revokes them all.
import { findAgent } from "../agents/service";
import { clock } from "../clock";
import { find, insert, insertOnly, run, runLater, select, update, type Op } from "../db";
import { type AgentId, secret, sha256Hex } from "../ids";
import { createKey, type NewKey } from "../keys/create";
import { agentKeys } from "../keys/schema";
import { SCOPES, type Scope } from "../keys/scopes";
import { inForce, keyView, revokeKey, scopesOf, type KeyRow } from "../keys/service";
import { toMajor, type Currency } from "../money";
import { HOUR_MS, MINUTE_MS } from "../time";
import { OAuthError } from "./clients";
import { keepDocumentClient, type AskingClient } from "./documents";
import { oauthClients, oauthCodes, oauthGrants, oauthRotatedRefreshTokens } from "./schema";
import { jsonText, readJson } from "../json";

export const ACCESS_TOKEN_LIFETIME_MS = HOUR_MS;
const CODE_LIFETIME_MS = 2 * MINUTE_MS;

/** An authorization request, checked: what the consent page shows and the code is bound to; `issuer` is this server's (RFC 8414, RFC 9207). */
export type AuthorizationRequest = { client: AskingClient; redirectUri: string; codeChallenge: string; state: string | null; resource: string; scopes: Scope[]; issuer: string };

/** What the owner approved: scopes, and a total budget per currency in major units. */
export type Consent = { scopes: Scope[]; budgets: Partial<Record<Currency, number>> };

/** A write op: the code for an approved request (shown once, in the redirect). */
export function* issueCode(agentId: AgentId, request: AuthorizationRequest, consent: Consent): Op<string> {
  const code = secret("oc_");
  const agent = (yield* findAgent(agentId))!;
  if (request.client.documentHost) yield* keepDocumentClient(request.client);
  yield* insert(oauthCodes, {
    codeHash: sha256Hex(code),
    clientId: request.client.id,
    agentId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scopes: jsonText(consent.scopes),
    budgets: jsonText(consent.budgets),
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

/** An access token for the grant whose key this is. */
function* mintAccessToken(grantKey: KeyRow, clientName: string): Op<string> {
  // The token's own budget is what the grant has left (the smallest unit once it is spent: a budget
  // is positive); the grant key above it counts every outflow anyway.
  const budgets: NonNullable<NewKey["budgets"]> = Object.create(null);
  for (const [currency, budget] of Object.entries((yield* keyView(grantKey)).budgets) as [Currency, { total: number | null; remaining: number | null }][]) {
    if (budget.total !== null) budgets[currency] = { total: budget.remaining || toMajor(1n, currency) };
  }
  const left = Number(grantKey.expiresAt) - clock.nowMs();
  const expiresInSeconds = Math.max(60, Math.floor(Math.min(ACCESS_TOKEN_LIFETIME_MS, left) / 1000));
  return (yield* createKey(grantKey.agentId, { parent: grantKey }, { name: `${clientName} (access token)`, scopes: scopesOf(grantKey), budgets, expiresInSeconds }, { purpose: "oauth_token" })).apiKey;
}

const tokensOf = (accessToken: string, refreshToken: string, grantKey: KeyRow): Tokens => ({
  access_token: accessToken,
  token_type: "Bearer",
  expires_in: Math.floor(ACCESS_TOKEN_LIFETIME_MS / 1000),
  refresh_token: refreshToken,
  scope: scopesOf(grantKey).join(" "),
});

export type CodeExchange = { clientId: string; code: string; codeVerifier: string; redirectUri: string; resource: string | undefined };

/** A write op: the authorization_code grant. A code works once; used again, the grant it made is revoked. */
export function* exchangeCode(asked: CodeExchange): Op<Tokens | Refused> {
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
  // A client with a grant is kept (clients.ts deletes those without one a day after registering).
  const client = yield* update(oauthClients, code.clientId, { expiresAt: null });
  const budgets: NonNullable<NewKey["budgets"]> = Object.create(null);
  for (const [currency, total] of Object.entries(readJson(code.budgets))) budgets[currency] = { total };
  // Made as the owner key that consented: rotating it revokes the grant and its tokens.
  const { row: grantKey } = yield* createKey(code.agentId, { madeWith: code.madeWith }, { name: `MCP host: ${client.name}`, scopes: readJson(code.scopes), budgets }, { purpose: "oauth_grant", resource: code.resource });
  const refreshToken = secret("or_");
  yield* insert(oauthGrants, { keyId: grantKey.id, clientId: client.id, resource: code.resource, refreshTokenHash: sha256Hex(refreshToken), createdAt: clock.nowMs() });
  yield* run("UPDATE oauth_codes SET grant_key_id = ? WHERE code_hash = ?", grantKey.id, codeHash);
  return tokensOf(yield* mintAccessToken(grantKey, client.name), refreshToken, grantKey);
}

/** The rotated-out refresh tokens kept per grant, newest first: an older one sent again is unknown rather than a reuse. */
export const ROTATED_TOKENS_KEPT = 100;

/** A refresh token sent a second time: the server cannot tell the client from whoever else has a copy, so the grant ends (RFC 9700 §4.14.2). */
function* refuseReuse(grantKeyId: string): Op<Refused> {
  const grantKey = (yield* find(agentKeys, grantKeyId))!;
  yield* revokeKey(grantKey.agentId, grantKey.id, null);
  return { refused: invalidGrant("this refresh token was already used: the grant and every token it gave are revoked; authorize again") };
}

/**
 * A write op: the refresh_token grant, within the grant (its scopes, budget and lifetime). The refresh
 * token is rotated by a compare-and-set, so of two requests with one token only one gets tokens; a
 * token sent again after its rotation (or the loser of that race) revokes the grant.
 */
export function* refreshGrant(asked: { clientId: string; refreshToken: string; resource: string | undefined }): Op<Tokens | Refused> {
  const tokenHash = sha256Hex(asked.refreshToken);
  const [grant] = yield* select(oauthGrants, "refresh_token_hash = ?", tokenHash);
  if (!grant) {
    const [rotated] = yield* select(oauthRotatedRefreshTokens, "token_hash = ?", tokenHash);
    if (rotated) return yield* refuseReuse(rotated.grantKeyId);
    return { refused: invalidGrant("unknown refresh token") };
  }
  if (grant.clientId !== asked.clientId) return { refused: invalidGrant("a refresh token of another client") };
  if (asked.resource !== undefined && asked.resource !== grant.resource) return { refused: new OAuthError("invalid_target", "resource is not the one the owner authorized") };
  const grantKey = (yield* find(agentKeys, grant.keyId))!;
  if (!inForce(grantKey)) return { refused: invalidGrant("the grant was revoked or expired; authorize again") };
  const refreshToken = secret("or_");
  // Rotated only if no concurrent refresh with the same token rotated it first (on PostgreSQL the
  // UPDATE waits for that one's commit and then finds the token changed).
  if ((yield* run("UPDATE oauth_grants SET refresh_token_hash = ? WHERE key_id = ? AND refresh_token_hash = ?", sha256Hex(refreshToken), grant.keyId, tokenHash)) === 0) {
    return yield* refuseReuse(grant.keyId);
  }
  yield* insertOnly(oauthRotatedRefreshTokens, { tokenHash, grantKeyId: grant.keyId, rotatedAt: clock.nowMs(), expiresAt: grantKey.expiresAt });
  yield* runLater(
    "DELETE FROM oauth_rotated_refresh_tokens WHERE grant_key_id = ? AND rotated_at < (SELECT rotated_at FROM oauth_rotated_refresh_tokens WHERE grant_key_id = ? ORDER BY rotated_at DESC LIMIT 1 OFFSET ?)",
    grant.keyId,
    grant.keyId,
    ROTATED_TOKENS_KEPT - 1,
  );
  const client = (yield* find(oauthClients, grant.clientId))!;
  return tokensOf(yield* mintAccessToken(grantKey, client.name), refreshToken, grantKey);
}

/** A write op for the job: forgets rotated-out refresh tokens of grants that expired (a reuse has nothing left to revoke). */
export function* purgeRotatedRefreshTokens(): Op<void> {
  yield* run("DELETE FROM oauth_rotated_refresh_tokens WHERE expires_at <= ?", clock.nowMs());
}

/** The scopes an authorization request names (space-separated), all of them when it names none; null: one is unknown. */
export function requestedScopes(scope: string | undefined): Scope[] | null {
  if (!scope?.trim()) return [...SCOPES];
  const asked = [...new Set(scope.trim().split(/\s+/))];
  return asked.every((name) => (SCOPES as readonly string[]).includes(name)) ? (asked as Scope[]) : null;
}

