// The MCP server (official @modelcontextprotocol/sdk): the tools of the catalogue and two resources,
// each answered by calling the agentbank HTTP API as the agent (a restricted key sees only the tools
// and resources whose routes its scopes open) — in-process at /mcp, or over HTTP
// from `agentbank mcp` — so authentication, limits, idempotency and errors are the API's own.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../errors";
import { scopeRefusal } from "../auth/callers";
import type { KeyScopes } from "../keys/service";
import { VERSION } from "../version";
import { requestFor, type ApiRequest, type Tool } from "./catalogue";
import { annotationsOf } from "./tools";

export type ApiCall = (request: ApiRequest) => Promise<{ status: number; body: unknown }>;

/** The request of an API call, made with the agent's `authorization`, for fetch() or app.handle(). */
export function apiRequestInit(call: ApiRequest, authorization: string): RequestInit {
  return {
    method: call.method,
    headers: { ...call.headers, authorization, ...(call.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: call.body !== undefined ? JSON.stringify(call.body) : undefined,
  };
}

/** An API answer as a tool sees it: the status, and the JSON body (its text if it is not JSON). */
export async function apiReply(response: Response): Promise<{ status: number; body: unknown }> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: response.status, body };
}

const INSTRUCTIONS = `agentbank is a bank for software agents. You act as one agent, identified by the API key this server was given.
Money: amounts are numbers in major units (12.5) in USDC, USDT, USD, EUR or BTC. Payments, loans, bets, contracts, subscriptions, bookings, withdrawals and x402 payments move money; each is limited per transaction by your reputation tier (get_limits).
Retries: every tool that moves money or creates something takes an idempotencyKey; when you retry a call, reuse the same key and it is applied once.
Errors come back as tool errors "CODE: message"; the message says what to change (a field's allowed values, the balance you have, the limit you hit).
Read get_balances before paying, list_inbox to see what happened to you (payments received, negotiation turns, ...).`;

/** Each resource is a GET of an API route (`path`, as the router declares it) with its `query`. */
const RESOURCES = [
  { uri: "agentbank://wallet/balances", name: "balances", title: "Your balances", description: "Available and held balance in every currency", path: "/wallets/balance", query: "" },
  { uri: "agentbank://messages/inbox", name: "inbox", title: "Your inbox", description: "The latest 50 messages and event notices you received", path: "/messages/inbox", query: "?limit=50" },
];

const text = (value: unknown) => JSON.stringify(value, null, 1);

function toolResult(status: number, body: unknown): CallToolResult {
  if (status >= 200 && status < 300) {
    const structured = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body };
    return { content: [{ type: "text", text: text(body) }], structuredContent: structured };
  }
  const error = (body ?? {}) as { error?: string; message?: string; details?: unknown };
  const summary = `${error.error ?? `HTTP_${status}`}: ${error.message ?? "the service refused the call"}`;
  return { isError: true, content: [{ type: "text", text: error.details ? `${summary}\n${text(error.details)}` : summary }] };
}

/** Why the caller may not call a tool's or a resource's route (a restricted key outside its scopes), or null. */
export type Refusal = (route: { method: string; path: string }) => ApiError | null;

/**
 * The one filter of tools and resources, at /mcp and in `agentbank mcp`: a restricted key's tools and
 * resources are those of its scopes' routes.
 */
export const routeRefusal =
  (key: KeyScopes | null): Refusal =>
  (route) =>
    scopeRefusal(key, route.method, route.path);

/**
 * `refusal`: tools it refuses are left out of tools/list, and a call of one is that tool error;
 * resources it refuses are left out of resources/list, and reading one is the error of an unknown one.
 */
export function createMcpServer(tools: Tool[], call: ApiCall, refusal: Refusal = () => null): Server {
  const server = new Server({ name: "agentbank", title: "agentbank", version: VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const resources = RESOURCES.filter((resource) => refusal({ method: "GET", path: resource.path }) === null);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.filter((tool) => refusal(tool) === null).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      annotations: annotationsOf(tool),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return { isError: true, content: [{ type: "text", text: `UNKNOWN_TOOL: there is no tool ${request.params.name}; list the tools to see them` }] };
    const refused = refusal(tool);
    if (refused) return toolResult(refused.status, { error: refused.code, message: refused.message });
    let apiRequest: ApiRequest;
    try {
      apiRequest = requestFor(tool, request.params.arguments ?? {});
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return toolResult(error.status, { error: error.code, message: error.message });
    }
    const { status, body } = await call(apiRequest);
    return toolResult(status, body);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: resources.map(({ path: _, query: __, ...resource }) => ({ ...resource, mimeType: "application/json" })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = resources.find((candidate) => candidate.uri === request.params.uri);
    if (!resource) throw new Error(`no resource ${request.params.uri}`);
    const { status, body } = await call({ method: "GET", path: resource.path + resource.query, headers: {} });
    if (status !== 200) throw new Error(`${(body as { error?: string })?.error ?? status}: ${(body as { message?: string })?.message ?? "refused"}`);
    return { contents: [{ uri: resource.uri, mimeType: "application/json", text: text(body) }] };
  });

  return server;
}
