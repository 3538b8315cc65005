// Route guards as Elysia macros: `{ agent: true }` resolves the calling agent and the restricted key
// it used, if any (and counts it against its rate limit); `{ owner: true }` resolves the agent whose
// human owner calls; `{ agentOrOwner: true }` takes either (the owner acts as the agent key). All
// authenticate in `transform`, before body validation, so a request without a valid key is 401 (a valid
// key of the other kind 403, a restricted key outside its scopes 403 KEY_SCOPE_DENIED) whatever its body.
import { Elysia } from "elysia";
import type { AgentRow } from "../agents/service";
import { agentFromHeader, bearer, ownerFromHeader, type AgentCaller } from "./keys";
import { ApiError } from "../errors";
import { keyScopes, type KeyScopes } from "../keys/service";
import { openToEveryKey, scopeOfRoute } from "../keys/scopes";
import { alreadyCounted, consumeAgent } from "./rate-limit";

const callers = new WeakMap<Request, AgentCaller>();

function caller(request: Request): AgentCaller {
  const found = callers.get(request);
  if (!found) throw new Error("auth: transform did not run");
  return found;
}

/** The restricted key this request came with, or null: what its write op acts for (mutation()). */
export const actingKeyOf = (request: Request): string | null => callers.get(request)?.key?.id ?? null;

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

async function agentCaller(authorization: string | undefined, request: Request, route: string, set: { headers: unknown }): Promise<void> {
  const found = await agentFromHeader(authorization);
  const refused = scopeRefusal(keyScopes(found.key), request.method, route);
  if (refused) throw refused;
  if (!alreadyCounted.has(request)) consumeAgent(found.agent, found.key?.id ?? null, set.headers as Record<string, string | number>);
  callers.set(request, found);
}

export const auth = new Elysia({ name: "auth" }).macro({
  agent: {
    transform: ({ headers, request, route, set }) => agentCaller(headers.authorization, request, route, set),
    resolve: ({ request }) => caller(request),
  },
  owner: {
    async transform({ headers, request }) {
      callers.set(request, { agent: await ownerFromHeader(headers.authorization), key: null });
    },
    resolve: ({ request }): { owner: AgentRow } => ({ owner: caller(request).agent }),
  },
  agentOrOwner: {
    async transform({ headers, request, route, set }) {
      if (!bearer(headers.authorization)?.startsWith("po_")) return agentCaller(headers.authorization, request, route, set);
      callers.set(request, { agent: await ownerFromHeader(headers.authorization), key: null });
    },
    resolve: ({ request }) => caller(request),
  },
});
