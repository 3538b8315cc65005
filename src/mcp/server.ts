// The MCP server (official @modelcontextprotocol/server, v2: protocol revisions 2026-07-28, 2025-11-25
// and 2025-06-18 from one definition): the tools of the catalogue, two resources and the prompts, each
// answered by calling the agentbank HTTP API as the agent (a restricted key sees only the tools,
// resources and prompts whose routes its scopes open) — in-process at /mcp, or over HTTP from
// `agentbank mcp` — so authentication, limits, idempotency and errors are the API's own.
import { ResourceNotFoundError, Server, type CallToolResult, type ServerContext, type Tool as McpTool } from "@modelcontextprotocol/server";
import { ApiError } from "../errors";
import { scopeRefusal } from "../auth/callers";
import type { KeyScopes } from "../keys/service";
import { VERSION } from "../version";
import { requestFor, type ApiCall, type ApiRequest, type Refusal, type Tool } from "./catalogue";
import { registerPrompts } from "./prompts";
import { annotationsOf } from "./tools";

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
Read get_balances before paying, list_inbox to see what happened to you (payments received, negotiation turns, ...).
Prompts: pay_invoice, review_approvals and explain_refusal walk you through those jobs with the tools above.`;

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

/**
 * The one filter of tools and resources, at /mcp and in `agentbank mcp`: a restricted key's tools and
 * resources are those of its scopes' routes.
 */
export const routeRefusal =
  (key: KeyScopes | null): Refusal =>
  (route) =>
    scopeRefusal(key, route.method, route.path);

/**
 * A tool that waits on something outside the bank (the chain, an x402 resource): a caller that sent a
 * progressToken hears when the wait starts and ends, and a log line says what it waits for. Both go out
 * only where the answer can carry them (an SSE answer: 2026-07-28's `auto` mode, or a 2025 request
 * that asked for progress); a JSON answer drops them.
 */
async function waited<T>(tool: Tool, ctx: ServerContext, work: () => Promise<T>): Promise<T> {
  if (!tool.waits) return work();
  const token = ctx.mcpReq._meta?.progressToken;
  const progress = (value: number, message: string) =>
    token === undefined ? Promise.resolve() : ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: value, total: 1, message } });
  await progress(0, `${tool.name}: ${tool.waits}`);
  await ctx.mcpReq.log("info", { tool: tool.name, waiting: tool.waits }, "agentbank");
  const result = await work();
  await progress(1, `${tool.name}: answered`);
  return result;
}

/**
 * `refusal`: tools it refuses are left out of tools/list, and a call of one is that tool error;
 * resources it refuses are left out of resources/list, and reading one is the error of an unknown one;
 * prompts it refuses (one of their tools is refused) are left out of prompts/list and cannot be got.
 */
export function createMcpServer(tools: Tool[], call: ApiCall, refusal: Refusal = () => null): Server {
  const server = new Server(
    { name: "agentbank", title: "agentbank", version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const resources = RESOURCES.filter((resource) => refusal({ method: "GET", path: resource.path }) === null);

  server.setRequestHandler("tools/list", () => ({
    tools: tools.filter((tool) => refusal(tool) === null).map((tool) => ({
      name: tool.name,
      description: tool.description,
      // The catalogue's schemas are JSON already (JSON.parse of the routes' own); only their TypeScript type is looser.
      inputSchema: tool.inputSchema as McpTool["inputSchema"],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as McpTool["outputSchema"] } : {}),
      annotations: annotationsOf(tool),
    })),
  }));

  server.setRequestHandler("tools/call", async (request, ctx) => {
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
    const { status, body } = await waited(tool, ctx, () => call(apiRequest));
    return server.projectCallToolResult(toolResult(status, body), tool.outputSchema ?? undefined);
  });

  server.setRequestHandler("resources/list", () => ({
    resources: resources.map(({ path: _, query: __, ...resource }) => ({ ...resource, mimeType: "application/json" })),
  }));

  // No templates: every resource is a fixed URI. Declared `resources`, so the list answers, empty.
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));

  server.setRequestHandler("resources/read", async (request) => {
    const resource = resources.find((candidate) => candidate.uri === request.params.uri);
    if (!resource) throw new ResourceNotFoundError(request.params.uri, `no resource ${request.params.uri.slice(0, 200)}`);
    const { status, body } = await call({ method: "GET", path: resource.path + resource.query, headers: {} });
    if (status !== 200) throw new Error(`${(body as { error?: string })?.error ?? status}: ${(body as { message?: string })?.message ?? "refused"}`);
    return { contents: [{ uri: resource.uri, mimeType: "application/json", text: text(body) }] };
  });

  registerPrompts(server, byName, call, refusal);
  return server;
}
