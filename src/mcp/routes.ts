// POST /mcp: the MCP server over Streamable HTTP (stateless, JSON answers), authenticated with the
// agent's API key. Each tool call is an in-process request to the API with the same key.
import { Elysia } from "elysia";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { agentFromHeader } from "../auth/keys";
import { onBehalfOf } from "../http/rate-limit";
import { buildCatalogue, type RouteInfo, type Tool } from "./catalogue";
import { apiReply, apiRequestInit, createMcpServer, type ApiCall } from "./server";
import { TOOLS } from "./tools";

type App = { routes: RouteInfo[]; handle: (request: Request) => Promise<Response> };

/** The API as one agent, called in-process through the whole request pipeline (auth, limits, logs). */
export function inProcessApi(app: App, authorization: string, clientAddress: string): ApiCall {
  return async (call) => {
    const request = new Request(`http://localhost${call.path}`, apiRequestInit(call, authorization));
    onBehalfOf.set(request, clientAddress);
    return apiReply(await app.handle(request));
  };
}

export function mcpRoutes(app: App) {
  let tools: Tool[] | null = null;
  const handle = async ({ request, body, server }: { request: Request; body: unknown; server: { requestIP(request: Request): { address: string } | null } | null }) => {
    const authorization = request.headers.get("authorization") ?? undefined;
    await agentFromHeader(authorization);
    tools ??= buildCatalogue(TOOLS, app.routes);
    const mcp = createMcpServer(tools, inProcessApi(app, authorization!, server?.requestIP(request)?.address ?? "unknown"));
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
