import { index, integer, json, table, text } from "../db/tables";
import type { Scope } from "../keys/scopes";
import type { Currency } from "../money";
import { agents } from "../agents/schema";
import { agentKeys } from "../keys/schema";

/**
 * An MCP host registered by dynamic client registration (RFC 7591), or one named by a client ID
 * metadata document when the owner approved it (its id is the document's URL, oauth/documents.ts): a
 * public client, PKCE only, no secret. One that has no grant a day after it was made is deleted
 * (oauth/clients.ts).
 */
export const oauthClients = table(
  "oauth_clients",
  {
    id: text().primaryKey(),
    name: text().notNull(),
    /** JSON array of the exact redirect URIs it may use. */
    redirectUris: json<string[]>().notNull(),
    createdAt: integer().notNull(),
    /** Who registered it (oauth/clients.ts registrantOf): the per-address bound counts by it; null before it was kept. */
    registeredFrom: text(),
    /** When it is deleted unless it has a grant by then (a day after registering); null once it has one. */
    expiresAt: integer(),
  },
  (t) => [index("oauth_clients_registered_from_idx").on(t.registeredFrom, t.createdAt), index("oauth_clients_expires_idx").on(t.expiresAt)],
);

/**
 * An authorization code, stored as its SHA-256: single use, short-lived, bound to the client, redirect
 * URI, PKCE challenge and resource, carrying what the owner consented to (scopes, budgets).
 */
export const oauthCodes = table(
  "oauth_codes",
  {
    codeHash: text().primaryKey(),
    clientId: text().notNull().references(() => oauthClients.columns.id),
    agentId: text().notNull().references(() => agents.columns.id),
    redirectUri: text().notNull(),
    codeChallenge: text().notNull(),
    resource: text().notNull(),
    /** JSON array of scopes the owner ticked. */
    scopes: json<Scope[]>().notNull(),
    /** JSON { currency: total } in major units, as the owner typed it; {}: no budget. */
    budgets: json<Partial<Record<Currency, number>>>().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
    /** The SHA-256 of the owner key whose console session consented: rotating it revokes the grant (null: a code from before it was recorded). */
    madeWith: text(),
    /** The grant its exchange made: a reused code revokes it (OAuth 2.1 §4.1.3). */
    grantKeyId: text(),
  },
  (t) => [index("oauth_codes_expires_idx").on(t.expiresAt)],
);

/**
 * What the owner granted a client: a restricted key that is never shown (the grant key: scopes,
 * budgets, the grant's lifetime) and the refresh token, rotated on use, that mints access tokens —
 * short-lived restricted keys made from the grant key, so their outflows count against its budget and
 * revoking it revokes them all.
 */
export const oauthGrants = table(
  "oauth_grants",
  {
    keyId: text().primaryKey().references(() => agentKeys.columns.id),
    clientId: text().notNull().references(() => oauthClients.columns.id),
    resource: text().notNull(),
    refreshTokenHash: text().notNull().unique(),
    createdAt: integer().notNull(),
  },
  (t) => [index("oauth_grants_client_idx").on(t.clientId)],
);

/**
 * The refresh tokens a grant rotated out, stored as their SHA-256: one sent again is a reuse (a copy
 * in someone else's hands), which revokes the grant (RFC 9700 §4.14.2). The newest
 * ROTATED_TOKENS_KEPT of a grant are kept until its key expires (oauth/service.ts).
 */
export const oauthRotatedRefreshTokens = table(
  "oauth_rotated_refresh_tokens",
  {
    tokenHash: text().primaryKey(),
    grantKeyId: text().notNull().references(() => oauthGrants.columns.keyId),
    rotatedAt: integer().notNull(),
    /** The grant key's expiry: past it, a reuse has nothing left to revoke and the row is deleted. */
    expiresAt: integer().notNull(),
  },
  (t) => [index("oauth_rotated_refresh_tokens_grant_idx").on(t.grantKeyId, t.rotatedAt), index("oauth_rotated_refresh_tokens_expires_idx").on(t.expiresAt)],
);
