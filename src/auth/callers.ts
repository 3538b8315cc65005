// Who calls: the calling agent and the restricted key it used, if any (counted against its rate limit);
// the agent whose human owner calls; the agent named by the path's `id`, for its owner only
// (ownerOfAgent); or either (the owner acts as the agent key). The door (src/door) runs these in
// `transform`, before body validation, so a request without a valid key is 401 (a valid key of the
// other kind 403, a restricted key outside its scopes 403 KEY_SCOPE_DENIED) whatever its body.
import { agentFromHeader, bearer, credentialKind, operatorFromHeader, ownerFromHeader, ownerOfAgent, type AgentCaller } from "./keys";
import type { Operator } from "../operators/audit";
import { noteCredential, noteOperator } from "../http/log";
import { ApiError } from "../errors";
import { keyScopes, type KeyRow, type KeyScopes } from "../keys/service";
import { openToEveryKey, scopeOfRoute } from "../keys/scopes";
import { consumeAgent } from "./rate-limit";
import { type AgentId } from "../ids";

const callers = new WeakMap<Request, AgentCaller>();

/** Who the authenticating step found for this request. */
export function caller(request: Request): AgentCaller {
  const found = callers.get(request);
  if (!found) throw new Error("auth: transform did not run");
  return found;
}

/**
 * The restricted key this request came with (null: the agent key), what its write op acts for, and the
 * key whose Idempotency-Keys it shares: an MCP host's token shares its grant's, since a host retries
 * with a renewed token (idempotency.ts).
 */
export function actingKeysOf(request: Request): { keyId: string | null; scopeKeyId: string | null } {
  const key = callers.get(request)?.key ?? null;
  return { keyId: key?.id ?? null, scopeKeyId: key === null ? null : key.purpose === "oauth_token" ? key.parentKeyId : key.id };
}

/** Why a restricted key may not call a route (one outside its scopes: keys/scopes.ts), or null. The filter of MCP's tools too. */
export function scopeRefusal(key: KeyScopes | null, method: string, route: string): ApiError | null {
  if (!key || openToEveryKey(method, route)) return null;
  const scope = scopeOfRoute(method, route);
  const { scopes } = key;
  if (scope !== null && scopes.includes(scope)) return null;
  return new ApiError(
    "KEY_SCOPE_DENIED",
    scope === null ? `${method} ${route} takes the agent's own API key; no restricted key may call it` : `this key lacks the scope "${scope}" that ${method} ${route} needs (it has: ${scopes.join(", ")})`,
    { details: { keyId: key.id, scope, scopes } },
  );
}

/**
 * Requests the service makes to itself for a tool call at /mcp: the message was counted against the
 * agent there (counting the API request too would charge it twice), and the key was checked there
 * against the resource an OAuth grant bound it to.
 */
export const mcpToolCalls = new WeakSet<Request>();

/**
 * A key bound to a resource (an MCP host's OAuth token, issued for `/mcp`) is refused anywhere else:
 * its audience is /mcp (RFC 8707), where its tools call the API for it.
 */
function resourceRefusal(key: KeyRow | null, request: Request, route: string, set: { headers: unknown }): ApiError | null {
  if (!key?.resource || mcpToolCalls.has(request)) return null;
  const headers = set.headers as Record<string, string>;
  headers["www-authenticate"] = `Bearer error="invalid_token", error_description="this token is for ${key.resource.slice(0, 200)}"`;
  return new ApiError("UNAUTHORIZED", `this token was issued to an MCP host for ${key.resource.slice(0, 200)}: it works there, through its tools, not at ${request.method} ${route}`);
}

async function agentCaller(authorization: string | undefined, request: Request, route: string, set: { headers: unknown }): Promise<void> {
  const found = await agentFromHeader(authorization);
  const refused = resourceRefusal(found.key, request, route, set) ?? scopeRefusal(keyScopes(found.key), request.method, route);
  if (refused) throw refused;
  if (!mcpToolCalls.has(request)) consumeAgent(found.agent, found.key?.id ?? null, set.headers as Record<string, string | number>);
  remember(request, found, false);
}

function remember(request: Request, caller: AgentCaller, owner: boolean): void {
  callers.set(request, caller);
  noteCredential(request, credentialKind(caller, owner), caller.key?.id ?? null);
}

/** What the door hands an authenticating step: the request as Elysia's transform sees it. */
export type Knock = { headers: Record<string, string | undefined>; request: Request; route: string; set: { headers: unknown }; params: unknown };

export const authenticateAgent = ({ headers, request, route, set }: Knock) => agentCaller(headers.authorization, request, route, set);

export async function authenticateOwner({ headers, request }: Knock): Promise<void> {
  remember(request, { agent: await ownerFromHeader(headers.authorization), key: null }, true);
}

/**
 * The owner of the agent the path's `id` names, and only that agent's. The id is not checked yet (the
 * schema runs after transform): one that names no agent has no owner, and is refused as any stranger's.
 */
export async function authenticateAgentOwner({ headers, request, params }: Knock): Promise<void> {
  remember(request, { agent: await ownerOfAgent(headers.authorization, ((params as Record<string, string>).id ?? "") as AgentId), key: null }, true);
}

/** The agent key (or a restricted key), or the owner key acting as the agent's own key. */
export async function authenticateEither(knock: Knock): Promise<void> {
  if (!bearer(knock.headers.authorization)?.startsWith("po_")) return authenticateAgent(knock);
  await authenticateOwner(knock);
}

const operators = new WeakMap<Request, Operator>();

/** The operator an /admin request came from (a named key's holder, or `admin`): the audit log's name, and its log line's. */
export function operatorOf(request: Request): Operator {
  const found = operators.get(request);
  if (!found) throw new Error("auth: the operator's transform did not run");
  return found;
}

/** Who calls an /admin route (auth/keys.ts, operatorFromHeader), kept for the request. */
export async function authenticateOperator({ headers, request }: { headers: Record<string, string | undefined>; request: Request }): Promise<void> {
  const operator = await operatorFromHeader(headers.authorization);
  operators.set(request, operator);
  noteOperator(request, operator.name);
}
