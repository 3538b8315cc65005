// POST /mcp: the MCP server over Streamable HTTP (stateless, JSON answers), authenticated with the
// agent's API key, a restricted key, or an OAuth access token issued for this resource (src/oauth; a
// 401 names the protected resource metadata in WWW-Authenticate, RFC 9728 §5.1), and within the agent's limits: only at the service's own host names (hosts.ts),
// every JSON-RPC message counted against the agent's rate limit as one request, at most
// MAX_BATCH_MESSAGES in one batch. Each tool call is an in-process request to the API with the same key.
import { Elysia } from "elysia";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { agentFromHeader } from "../auth/keys";
import { mcpToolCalls } from "../auth/callers";
import { consumeAgent, onBehalfOf } from "../auth/rate-limit";
import { config } from "../config";
import { ApiError } from "../errors";
import { baseUrlOf, mcpResourceOf } from "../oauth/authorize";
import { keyScopes } from "../keys/service";
import { buildCatalogue, type RouteInfo, type Tool } from "./catalogue";
import { assertAddressedToUs } from "./hosts";
import { apiReply, apiRequestInit, createMcpServer, routeRefusal, type ApiCall } from "./server";
import { TOOLS } from "./tools";

type App = { routes: RouteInfo[]; handle: (request: Request) => Promise<Response> };

/** At most this many messages in one JSON-RPC batch: bounds the work, and the answer, of one request. */
const MAX_BATCH_MESSAGES = 20;

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

export function mcpRoutes(app: App) {
  let tools: Tool[] | null = null;
  const handle = async ({ request, body, set, server }: Context) => {
    assertAddressedToUs(request, server?.port ?? config.port);
    const authorization = request.headers.get("authorization") ?? undefined;
    const { agent, key } = await mcpCaller(request, set);
    consumeAgent(agent, key?.id ?? null, set.headers as Record<string, string | number>, messageCount(body));
    tools ??= buildCatalogue(TOOLS, app.routes);
    const mcp = createMcpServer(tools, inProcessApi(app, authorization!, server?.requestIP(request)?.address ?? "unknown", true), routeRefusal(keyScopes(key)));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body ?? undefined });
    } finally {
      await mcp.close();
    }
  };
  return new Elysia({ name: "mcp" })
    .post("/mcp", handle, { detail: { hide: true } })
    .get("/mcp", handle, { detail: { hide: true } })
    .delete("/mcp", handle, { detail: { hide: true } });
}
