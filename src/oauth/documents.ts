// MCP hosts identified by a client ID metadata document (CIMD: draft-ietf-oauth-client-id-metadata-document,
// the registration MCP 2026-07-28 prefers to dynamic registration): the client_id is an https URL, and
// the JSON document there is the client's registration. It is fetched through the outbound guard
// (src/net/outbound.ts: public addresses only, the connection pinned to the checked address, no
// redirects), bounded in size and time, validated, and kept in this instance's memory for as long as
// its Cache-Control says within a floor and a ceiling. A failure is not kept (the draft: "MUST NOT
// cache error responses"), so a host that fixes its document is taken at once; concurrent requests for
// one URL share one fetch.
import { clock } from "../clock";
import { config } from "../config";
import { isLoopbackHost } from "../net/addresses";
import { outboundFetch, OutboundRefused, readCapped, TooLarge } from "../net/outbound";
import { HOUR_MS, MINUTE_MS } from "../time";
import { run, type Op } from "../db";
import { jsonText } from "../json";
import { CLIENT_LIMITS, UNUSED_CLIENT_LIFETIME_MS } from "./clients";

/**
 * *Decision:* 5 KiB is the draft's recommended maximum; 5 s is the webhooks' bound; a document is kept
 * at least a minute (an authorization reads it three times: /oauth/authorize, the consent page, the
 * owner's decision) and at most an hour (a host that changes its redirect URIs waits no longer).
 */
const DOCUMENT_LIMITS = { bytes: 5 * 1024, timeoutMs: 5_000, urlLength: CLIENT_LIMITS.uriLength, keptAtLeastMs: MINUTE_MS, keptAtMostMs: HOUR_MS, kept: 1_000 } as const;

/** A client as an authorization request names it: registered (documentHost null) or by its metadata document. */
export type AskingClient = { id: string; name: string; redirectUris: string[]; documentHost: string | null };

/** What the consent page and the grant key call a client: a document client's self-given name with its host. */
export const clientLabel = (client: AskingClient) => (client.documentHost ? `${client.name} (${client.documentHost})` : client.name);

/** Whether a client_id names a metadata document (a URL) rather than a registered client. */
export const isDocumentClientId = (clientId: string) => /^https?:\/\//i.test(clientId);

/**
 * Why a client_id URL is not one this server fetches, or null: https with a path, no fragment, user
 * name or password, written as the URL parser writes it (the draft forbids dot segments, and the
 * document's client_id is compared to it without normalizing). http is taken only to a loopback host
 * with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, the development switch of every outbound call.
 */
function clientIdUrlProblem(clientId: string): string | null {
  if (clientId.length > DOCUMENT_LIMITS.urlLength) return `a client_id URL is at most ${DOCUMENT_LIMITS.urlLength} characters`;
  const url = URL.parse(clientId);
  if (!url) return "the client_id is not a URL";
  if (url.hash || clientId.includes("#")) return "a client_id URL has no fragment (#…)";
  if (url.username || url.password) return "a client_id URL has no user name or password";
  const developing = url.protocol === "http:" && config.webhookAllowPrivateNetworks && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !developing) return "a client_id URL is https";
  if (url.pathname === "/") return "a client_id URL has a path (https://host/client.json)";
  if (url.href !== clientId) return `a client_id URL is written in its normal form (${url.href.slice(0, 200)}): no dot segments, lower-case scheme and host, no default port`;
  return null;
}

export class DocumentRefused extends Error {}

type Kept = { client: AskingClient; until: number };
const kept = new Map<string, Kept>();
const fetching = new Map<string, Promise<AskingClient>>();

/** How long a document may be kept: its max-age (none, no-store or no-cache: the floor), within the floor and the ceiling. */
function keptForMs(cacheControl: string | null): number {
  const directives = (cacheControl ?? "").toLowerCase();
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,10})/.exec(directives);
  const asked = /no-store|no-cache/.test(directives) || !maxAge ? 0 : Number(maxAge[1]) * 1000;
  return Math.min(DOCUMENT_LIMITS.keptAtMostMs, Math.max(DOCUMENT_LIMITS.keptAtLeastMs, asked));
}

const ofDocument = (document: Record<string, unknown>, name: string) => Object.hasOwn(document, name) ? document[name] : undefined;

/** The client a fetched document describes, or DocumentRefused saying what in it this server cannot take. */
function clientOfDocument(clientId: string, document: unknown): AskingClient {
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new DocumentRefused("it is not a JSON object");
  const field = (name: string) => ofDocument(document as Record<string, unknown>, name);
  if (field("client_id") !== clientId) throw new DocumentRefused("its client_id is not exactly the URL it was fetched from");
  if (field("client_secret") !== undefined || field("client_secret_expires_at") !== undefined) throw new DocumentRefused("it holds a client_secret; a metadata document has none");
  const method = field("token_endpoint_auth_method");
  if (method !== undefined && method !== "none") throw new DocumentRefused(`token_endpoint_auth_method is ${JSON.stringify(method).slice(0, 50)}: this server takes public clients only (none, with PKCE)`);
  const lists = (name: string, value: string) => {
    const list = field(name);
    return list === undefined || (Array.isArray(list) && list.includes(value));
  };
  if (!lists("grant_types", "authorization_code")) throw new DocumentRefused("its grant_types do not include authorization_code");
  if (!lists("response_types", "code")) throw new DocumentRefused("its response_types do not include code");
  const uris = field("redirect_uris");
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === "string")) throw new DocumentRefused("redirect_uris is not a list of URLs");
  const host = new URL(clientId).host;
  const named = field("client_name");
  // Shown to the owner as the host's own claim: control characters out, cut to the registered names' length.
  const name = (typeof named === "string" ? named.replace(/[\p{Cc}\p{Cf}]/gu, "").trim() : "").slice(0, CLIENT_LIMITS.nameLength) || host;
  return { id: clientId, name, redirectUris: uris as string[], documentHost: host };
}

async function fetchDocument(clientId: string): Promise<AskingClient> {
  let body: Uint8Array;
  let cacheControl: string | null;
  try {
    const answer = await outboundFetch(clientId, { method: "GET", headers: { accept: "application/json" }, timeoutMs: DOCUMENT_LIMITS.timeoutMs });
    if (answer.status >= 300 && answer.status < 400) {
      await answer.body?.cancel();
      throw new DocumentRefused(`it answered a redirect (HTTP ${answer.status}); redirects are not followed`);
    }
    if (answer.status !== 200) {
      await answer.body?.cancel();
      throw new DocumentRefused(`it answered HTTP ${answer.status}, not 200`);
    }
    cacheControl = answer.headers.get("cache-control");
    body = await readCapped(answer, DOCUMENT_LIMITS.bytes);
  } catch (error) {
    if (error instanceof DocumentRefused) throw error;
    if (error instanceof OutboundRefused) throw new DocumentRefused(`it may not be fetched: ${error.message}`);
    if (error instanceof TooLarge) throw new DocumentRefused(`it is larger than ${DOCUMENT_LIMITS.bytes / 1024} KiB`);
    if (error instanceof Error && error.name === "TimeoutError") throw new DocumentRefused(`it did not arrive within ${DOCUMENT_LIMITS.timeoutMs / 1000} s`);
    throw new DocumentRefused("it could not be fetched (the connection failed)");
  }
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new DocumentRefused("it is not JSON");
  }
  const client = clientOfDocument(clientId, document);
  if (kept.size >= DOCUMENT_LIMITS.kept) kept.delete(kept.keys().next().value!);
  kept.set(clientId, { client, until: clock.nowMs() + keptForMs(cacheControl) });
  return client;
}

/** The client a client_id URL names: kept, or fetched now; DocumentRefused says why it cannot be used. */
export async function documentClient(clientId: string): Promise<AskingClient> {
  const problem = clientIdUrlProblem(clientId);
  if (problem) throw new DocumentRefused(problem);
  const known = kept.get(clientId);
  if (known && known.until > clock.nowMs()) return known.client;
  kept.delete(clientId);
  const pending = fetching.get(clientId);
  if (pending) return pending;
  const fetched = fetchDocument(clientId).finally(() => fetching.delete(clientId));
  fetching.set(clientId, fetched);
  return fetched;
}

/**
 * A write op when the owner approves a document client: the row its codes and grants refer to, made or
 * given the document's current name and redirect URIs. Like a registered client's, it is deleted a day
 * later unless a code of it was exchanged (clients.ts); a new approval gives it that day again.
 */
export function* keepDocumentClient(client: AskingClient): Op<void> {
  const now = clock.nowMs();
  yield* run(
    `INSERT INTO oauth_clients (id, name, redirect_uris, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris,
       expires_at = CASE WHEN oauth_clients.expires_at IS NULL THEN NULL ELSE excluded.expires_at END`,
    client.id,
    clientLabel(client),
    jsonText(client.redirectUris),
    now,
    now + UNUSED_CLIENT_LIFETIME_MS,
  );
}
