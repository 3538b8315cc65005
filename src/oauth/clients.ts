// MCP hosts registered by dynamic client registration (RFC 7591): public clients, PKCE only, no secret,
// each with the exact redirect URIs it may use. Registration is open to anyone, so it is bounded (per
// address per day, and in all), clients nobody granted anything within a day are deleted, and it
// refuses metadata this server cannot honour.
import ipaddr from "ipaddr.js";
import { clock } from "../clock";
import { find, get, insert, run, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { ApiError } from "../errors";
import { uuid } from "../ids";
import { DAY_MS } from "../time";
import { oauthClients } from "./schema";
import { jsonText, readJson } from "../json";

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
export const redirectUrisOf = (client: ClientRow): string[] => readJson(client.redirectUris);

/**
 * Registration is open to anyone: bounded in size, in live clients (registered in the last day, or
 * with a grant), and per registrant in a day (besides the per-address rate limit of public routes).
 * *Decision:* 20 a day is more than a machine's hosts need (each registers once and keeps its
 * client_id; a host that lost it registers again) and leaves room for a few people behind one NAT,
 * while filling the 10,000 takes 500 addresses (IPv6: /64 networks) within one day.
 */
export const CLIENT_LIMITS = { clients: 10_000, perRegistrantPerDay: 20, redirectUris: 5, uriLength: 500, nameLength: 80 } as const;
/** A client without a grant this long after registering is deleted. */
export const UNUSED_CLIENT_LIFETIME_MS = DAY_MS;
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

/**
 * Who registers, as the per-registrant bound counts: an IPv4 address, or an IPv6 address's /64 (one
 * network, as an ISP hands out; its 2^64 addresses cost nothing more than one).
 */
export function registrantOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(":")}::/64`;
}

/** Refuses a registrant's registration past its day's bound, saying when the oldest of them leaves the window. */
function* assertRegistrantWithinDay(registrant: string, now: number): Op<void> {
  const since = now - DAY_MS;
  const counted = (yield* get<{ count: bigint; oldest: bigint | null }>("SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM oauth_clients WHERE registered_from = ? AND created_at > ?", registrant, since))!;
  if (counted.count < BigInt(CLIENT_LIMITS.perRegistrantPerDay)) return;
  throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${CLIENT_LIMITS.perRegistrantPerDay} clients are registered from one address (an IPv6 /64) in a day`, {
    retryAfterSeconds: Math.max(1, Math.ceil((Number(counted.oldest) - since) / 1000)),
  });
}

/** A write op: registers a public client (RFC 7591) for `registrant` (registrantOf the caller's address). */
export function* registerClient(metadata: ClientMetadata, registrant: string): Op<ClientRow> {
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
  const now = clock.nowMs();
  yield* assertRegistrantWithinDay(registrant, now);
  // Live clients: those not yet due for deletion (a client due, and not yet deleted by the job, is not counted).
  const live = (yield* get<{ count: bigint }>("SELECT COUNT(*) AS count FROM oauth_clients WHERE expires_at IS NULL OR expires_at > ?", now))!.count;
  if (live >= BigInt(CLIENT_LIMITS.clients)) throw new OAuthError("temporarily_unavailable", "this service has registered as many clients as it takes; ask its operator", 503);
  const name = (metadata.client_name ?? "").trim() || "unnamed MCP host";
  return yield* insert(oauthClients, { id: uuid(), name, redirectUris: jsonText(uris), createdAt: now, registeredFrom: registrant, expiresAt: now + UNUSED_CLIENT_LIFETIME_MS });
}

/**
 * A write op: deletes a client that is due (no grant a day after registering) with its codes, unless
 * a code of it may still be exchanged (it waits until that code expires).
 */
function* deleteClientIfUnused(id: string): Op<boolean> {
  const client = yield* find(oauthClients, id, true);
  const now = clock.nowMs();
  if (!client || client.expiresAt === null || client.expiresAt > now) return false;
  if (yield* get("SELECT 1 AS live FROM oauth_codes WHERE client_id = ? AND expires_at > ?", id, now)) return false;
  yield* run("DELETE FROM oauth_codes WHERE client_id = ?", id);
  yield* run("DELETE FROM oauth_clients WHERE id = ?", id);
  return true;
}

const unusedClients: DueWork = {
  name: "oauth.clients-purge",
  table: "oauth_clients",
  // expires_at is null once the client has a grant (the code exchange clears it).
  where: "expires_at IS NOT NULL",
  dueColumn: "expires_at",
  apply: deleteClientIfUnused,
};

/** Before a client is acted on: deleted now if it is due, so it answers as unknown. */
export const applyClientDue = (id: string) => applyIfDue(unusedClients, id);

/** The job: every client due is deleted. */
export const purgeUnusedClients = () => applyDue(unusedClients);

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
