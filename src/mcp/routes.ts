// POST /mcp: the MCP server over Streamable HTTP (stateless), authenticated with the
// agent's API key, a restricted key, or an OAuth access token issued for this resource (src/oauth; a
// 401 names the protected resource metadata in WWW-Authenticate, RFC 9728 §5.1), and within the agent's limits: only at the service's own host names (hosts.ts),
// every JSON-RPC message counted against the agent's rate limit as one request, at most
// MAX_BATCH_MESSAGES in one batch. Each tool call is an in-process request to the API with the same key.
// Both eras on the one endpoint, as the SDK classifies a request: 2026-07-28 (the per-request `_meta`
// envelope, server/discover, Mcp-Method headers) through the SDK's modern handler, answering JSON or,
// when a tool sends progress before its result, SSE; 2025-11-25 and 2025-06-18 (initialize, no envelope)
// through a stateless transport answering JSON, or SSE to a request that asked for progress.
import { Elysia } from "elysia";
import { createMcpHandler, isLegacyRequest, legacyStatelessFallback, WebStandardStreamableHTTPServerTransport, type McpRequestContext } from "@modelcontextprotocol/server";
import { agentFromHeader } from "../auth/keys";
import { mcpToolCalls } from "../auth/callers";
import { consumeAgent, onBehalfOf } from "../auth/rate-limit";
import { config } from "../config";
import { ApiError } from "../errors";
import { baseUrlOf, mcpResourceOf } from "../oauth/authorize";
import { keyScopes } from "../keys/service";
import { buildCatalogue, type ApiCall, type RouteInfo, type Tool } from "./catalogue";
import { assertAddressedToUs } from "./hosts";
import { apiReply, apiRequestInit, createMcpServer, routeRefusal } from "./server";
import { TOOLS } from "./tools";

type App = { routes: RouteInfo[]; handle: (request: Request) => Promise<Response> };

/** At most this many messages in one JSON-RPC batch: bounds the work, and the answer, of one request. */
const MAX_BATCH_MESSAGES = 20;
/** At most this many 2026-07-28 subscriptions/listen streams open at once, for every caller together. */
const MAX_LISTEN_STREAMS = 64;

/**
 * The API as one agent, called in-process through the whole request pipeline (auth, limits, logs).
 * `atMcp`: the calls are a tool call received at /mcp, whose message was counted and whose key was
 * checked there (an OAuth token works only for /mcp's tools).
 */
export function inProcessApi(app: App, authorization: string, clientAddress: string, atMcp: boolean): ApiCall {
  return async (call) => {
    const request = new Request(`http://localhost${call.path}`, apiRequestInit(call, authorization));
    onBehalfOf.set(request, clientAddress);
    if (atMcp) mcpToolCalls.add(request);
    return apiReply(await app.handle(request));
  };
}

/** How many JSON-RPC messages the body holds (a GET or DELETE counts as one request). */
function messageCount(body: unknown): number {
  if (!Array.isArray(body)) return 1;
  if (body.length > MAX_BATCH_MESSAGES) {
    throw new ApiError("PAYLOAD_TOO_LARGE", `a JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages (this one has ${body.length}); send the rest in another request`);
  }
  return Math.max(1, body.length);
}

/**
 * The caller, if its key may be used here: an OAuth token issued for another resource is refused
 * (RFC 8707: its audience is elsewhere). Any 401 carries the challenge that starts an MCP host's OAuth flow.
 */
async function mcpCaller(request: Request, set: Context["set"]) {
  const base = baseUrlOf(request);
  try {
    const caller = await agentFromHeader(request.headers.get("authorization") ?? undefined);
    const resource = caller.key?.resource ?? null;
    if (resource !== null && resource !== mcpResourceOf(base)) {
      set.headers["www-authenticate"] = `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource"`;
      throw new ApiError("UNAUTHORIZED", `this token was issued for ${resource.slice(0, 200)}, not for ${mcpResourceOf(base)}`);
    }
    return caller;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) set.headers["www-authenticate"] ??= `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`;
    throw error;
  }
}

type Context = {
  request: Request;
  body: unknown;
  set: { headers: Record<string, unknown> };
  server: { port?: number; requestIP(request: Request): { address: string } | null } | null;
};

/** Whether a 2025 request asks for progress (a progressToken in a request's `_meta`): its answer must be able to carry notifications. */
const asksForProgress = (body: unknown) =>
  [body].flat().some((message) => (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);

type ServerOf = () => ReturnType<typeof createMcpServer>;
/** The caller's server travels to the SDK's factory in `authInfo.extra`, the one per-request value the SDK passes through untouched. */
const serverOf = (context: McpRequestContext) => (context.authInfo!.extra!.server as ServerOf)();

/** The 2025 eras, JSON answers: a fresh server on a stateless transport, closed when it has answered. */
async function legacyJson(server: ReturnType<typeof createMcpServer>, request: Request, body: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body ?? undefined });
  } finally {
    await server.close();
  }
}

export function mcpRoutes(app: App) {
  let tools: Tool[] | null = null;
  // A subscriptions/listen stream here never carries an event (the server declares no listChanged and
  // no subscribe: its lists are fixed, its resources are per caller): bound how many sit open at once.
  const modern = createMcpHandler(serverOf, { legacy: "reject", maxSubscriptions: MAX_LISTEN_STREAMS });
  // Streams its answer and closes the server when the stream ends (and answers GET and DELETE, the 2025 session operations, 405).
  const legacyStreaming = legacyStatelessFallback(serverOf);
  const handle = async ({ request, body, set, server }: Context) => {
    assertAddressedToUs(request, server?.port ?? config.port);
    const authorization = request.headers.get("authorization") ?? undefined;
    const { agent, key } = await mcpCaller(request, set);
    consumeAgent(agent, key?.id ?? null, set.headers as Record<string, string | number>, messageCount(body));
    tools ??= buildCatalogue(TOOLS, app.routes);
    const catalogue = tools;
    const mcpServer: ServerOf = () => createMcpServer(catalogue, inProcessApi(app, authorization!, server?.requestIP(request)?.address ?? "unknown", true), routeRefusal(keyScopes(key)));
    const options = { parsedBody: body ?? undefined, authInfo: { token: "", clientId: agent.id, scopes: [], extra: { server: mcpServer } } };
    if (!(await isLegacyRequest(request, body ?? undefined))) return modern.fetch(request, options);
    if (request.method !== "POST" || asksForProgress(body)) return legacyStreaming(request, options);
    return legacyJson(mcpServer(), request, body);
  };
  return new Elysia({ name: "mcp" })
    .post("/mcp", handle, { detail: { hide: true } })
    .get("/mcp", handle, { detail: { hide: true } })
    .delete("/mcp", handle, { detail: { hide: true } });
}
