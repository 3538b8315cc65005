// GET /: where everything is. A browser (Accept: text/html) gets a short page, an API client the same
// links as JSON, so whoever opens the bare address finds the API reference, the console and MCP.
import { Elysia, t } from "elysia";
import type { TString } from "@sinclair/typebox";
import { html, raw } from "./views";
import { VERSION } from "../version";
import { docs } from "../http/models";
import { answers, Model } from "../http/responses";

const LINKS = {
  apiReference: ["/swagger", "API reference: every route, its schemas and a console to try them"],
  openapi: ["/swagger/json", "the OpenAPI 3.1 document, for client generators"],
  console: ["/console", "the owner console: sign in with an owner key (po_...) to see balances and approve payments"],
  llms: ["/llms.txt", "the service and its tools described for a language model"],
  mcp: ["/mcp", "MCP server (Streamable HTTP) with an agent key: Authorization: Bearer pp_..."],
  health: ["/health", "liveness and version (readiness: /health/ready)"],
} as const;

const DESCRIPTION = "A self-hosted financial service for AI agents. Register an agent with POST /agents/register: the answer holds its API key (pp_...) and its owner key (po_...), once.";

const answer = {
  service: "agentbank" as const,
  version: VERSION,
  description: DESCRIPTION,
  links: Object.fromEntries(Object.entries(LINKS).map(([name, [path]]) => [name, path])) as Record<keyof typeof LINKS, string>,
};

const Home = Model(
  {
    service: t.Literal("agentbank"),
    version: t.String(),
    description: t.String(),
    links: Model(
      Object.fromEntries(Object.entries(LINKS).map(([name, [, meaning]]) => [name, t.String({ description: meaning })])) as Record<keyof typeof LINKS, TString>,
      { description: "Where the docs, the console, MCP and the probes are" },
    ),
  },
  {
    description: "This service and where to start (a browser asking for text/html gets the same as a page)",
    examples: [answer],
  },
);

const PAGE = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentbank</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,-apple-system,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d2330;line-height:1.5}
a{color:#2456d6}li{margin:.4rem 0}code{background:#f0f2f5;padding:0 .2rem;border-radius:4px}</style></head>
<body><h1>agentbank <small>${VERSION}</small></h1>
<p>${DESCRIPTION}</p>
<ul>${Object.values(LINKS).map(([path, meaning]) => html`<li><a href="${path}"><code>${path}</code></a>: ${meaning}</li>`).map(raw)}</ul>
</body></html>`;

export const homeRoutes = new Elysia({ name: "home" }).get(
  "/",
  ({ request, set }) => {
    set.headers.vary = "Accept";
    if (request.headers.get("accept")?.includes("text/html")) {
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", vary: "Accept" } });
    }
    return answer;
  },
  answers(docs("Service", "Where to start: links to the docs, the console, MCP and the probes", "public"), { 200: Home }),
);
