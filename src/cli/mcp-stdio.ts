// `agentbank mcp`: the MCP server on stdio, for one agent (its API key). With --url (or AGENTBANK_URL)
// each tool call is an HTTP request to that running agentbank; without, the tools run in this process
// on the local database (DATABASE_PATH), with no jobs and no listener — meant for when no service runs
// on that file (timed transitions are still applied whenever a resource is read or acted on). A
// restricted key (pp_r_…) sees only the tools of its scopes, as at /mcp: it reads itself first. The
// protocol revisions are /mcp's (src/mcp/server.ts).
import { parseArgs } from "node:util";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createApp } from "../app";
import { boot, loadConfig } from "../boot";
import { exitWith, logToStderr } from "../log";
import { buildCatalogue, type ApiCall } from "../mcp/catalogue";
import { inProcessApi } from "../mcp/routes";
import type { KeyScopes } from "../keys/service";
import { apiReply, apiRequestInit, createMcpServer, routeRefusal } from "../mcp/server";
import { TOOLS } from "../mcp/tools";

function overHttp(base: string, authorization: string): ApiCall {
  return async (call) => apiReply(await fetch(new URL(call.path, base), apiRequestInit(call, authorization)));
}

const stop = (message: string): never => exitWith(1, `agentbank mcp: ${message}`);

export async function runMcpStdio(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { url: { type: "string" }, key: { type: "string" } }, strict: true });
  const key = values.key ?? process.env.AGENTBANK_API_KEY;
  const url = values.url ?? process.env.AGENTBANK_URL;
  if (!key) stop("give the agent's API key with --key or AGENTBANK_API_KEY");
  logToStderr();
  const authorization = `Bearer ${key}`;
  let call: ApiCall;
  let app: ReturnType<typeof createApp>;
  if (url) {
    loadConfig();
    app = createApp();
    call = overHttp(url, authorization);
  } else {
    await boot();
    app = createApp();
    call = inProcessApi(app, authorization, "stdio", false);
  }
  // A wrong key is refused now, not at the model's first tool call; any key may read itself, whatever its scopes.
  const me = await call({ method: "GET", path: "/agents/me/keys/current", headers: {} }).catch((error) => stop(`cannot reach ${url}: ${(error as Error).message}`));
  if (me.status !== 200) stop(`the key was refused: ${(me.body as { message?: string })?.message ?? me.status}`);
  const { key: restricted } = me.body as { key: KeyScopes | null };
  const tools = buildCatalogue(TOOLS, app.routes);
  // The client's opening picks the era (2026-07-28 server/discover, or a 2025 initialize) for the connection.
  serveStdio(() => createMcpServer(tools, call, routeRefusal(restricted)));
}
