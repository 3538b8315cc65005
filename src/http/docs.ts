// The OpenAPI document and its UI (Scalar), with the UI's script embedded in the binary: the reference
// renders offline, from this service alone.
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
// Scalar's browser bundle, copied into this package by scripts/scalar-bundle.ts (its own package exports
// no path to it, and an installed agentbank cannot know where an installer put that package).
import scalarScript from "./scalar.bundle.js" with { type: "file" };
import { FormatRegistry } from "elysia/type-system";
import { fullFormats } from "elysia/type-system/format";
import { VERSION } from "../version";
import { polishDocument } from "./openapi";

// @elysiajs/openapi replaces TypeBox's string formats (uuid, email, ...) with checks that build a Zod
// schema on every call: 60 µs per validated request. Put Elysia's own regex checks back.
for (const [name, format] of Object.entries(fullFormats)) {
  if (format instanceof RegExp) FormatRegistry.Set(name, (value) => format.test(value));
  else if (typeof format === "function") FormatRegistry.Set(name, format as (value: string) => boolean);
}

const SCRIPT_PATH = "/swagger/assets/scalar.js";
const SPEC_PATH = "/swagger/json";
const polished = new WeakSet<object>();

const AUTHENTICATION = `
## Authentication

Every route but the public ones (registration, reputation, service discovery, health) takes one key, sent as a bearer token in the \`Authorization\` header. Each route below names the key it takes.

- **Agent key** \`pp_...\`: \`apiKey\` in the answer of \`POST /agents/register\`, shown once. Opens the agent's own routes, and MCP at \`/mcp\`.
- **Owner key** \`po_...\`: \`ownerKey\` in the same answer, for the agent's human owner. Opens \`/owner/...\` and the owner console at \`/console\`.
- **Operator key**: the value of \`ADMIN_API_KEY\` in the service's configuration. Opens \`/admin/...\`, such as \`POST /admin/deposits\` to fund an agent; every \`/admin\` route answers 404 while it is unset.

For example, an agent asking for its balances:

    curl http://127.0.0.1:3000/wallets/balance -H 'Authorization: Bearer pp_8mJx0Qk3YvT2cW9rL5nB7dF1hA6sE4gU0iO2pZ8aKxc'

To try a route here: open Test Request, keep the agent key (preselected) or pick the key the route names, and paste the key as the bearer token.
`;

/**
 * The API reference's settings (Scalar): everything it shows comes from this service. No web fonts
 * (system fonts instead of fonts.scalar.com), and none of the features that send the document or the
 * reader elsewhere: the AI agent ("Ask AI"), MCP generation, the developer toolbar (share, deploy),
 * telemetry. This service is itself the MCP server.
 */
const REFERENCE_SETTINGS = {
  url: SPEC_PATH,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  authentication: { preferredSecurityScheme: "agentKey" },
  customCss: ":root{--scalar-font:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;--scalar-font-code:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}",
};

// The page the OpenAPI plugin would render puts the settings in a single-quoted attribute unescaped;
// this one puts them in a script, escaped for it.
const referencePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentbank API reference</title><link rel="icon" href="data:,"><style>body{margin:0}</style></head>
<body><div id="reference"></div>
<script src="${SCRIPT_PATH}"></script>
<script>Scalar.createApiReference("#reference", ${JSON.stringify(REFERENCE_SETTINGS).replace(/</g, "\\u003c")})</script>
</body></html>`;

export const apiDocs = new Elysia({ name: "docs" })
  // Before the plugin, so that it covers the plugin's document route. The plugin caches its document
  // object: it is touched up once (see openapi.ts).
  .onAfterHandle({ as: "global" }, ({ path, response }) => {
    if (path !== SPEC_PATH || !response || typeof response !== "object" || polished.has(response)) return;
    polished.add(polishDocument(response as never));
  })
  .get(SCRIPT_PATH, () => new Response(Bun.file(scalarScript), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
  .get("/swagger", () => new Response(referencePage, { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } })
  .use(
    openapi({
      path: "/swagger",
      specPath: SPEC_PATH,
      provider: null,
      exclude: { paths: [SCRIPT_PATH] },
      documentation: {
        info: {
          title: "agentbank",
          version: VERSION,
          description:
            "Financial service for autonomous software agents. Amounts are JSON numbers in major units; each currency has fixed decimals (USDC/USDT 6, USD/EUR 2, BTC 8). Errors are { error, message } with a stable code. Bodies are JSON only. MCP: Streamable HTTP at /mcp with the agent key.\n" +
            AUTHENTICATION,
        },
        components: {
          securitySchemes: {
            agentKey: { type: "http", scheme: "bearer", description: "The agent's API key (pp_...): `apiKey` in the answer of POST /agents/register, shown once. `Authorization: Bearer pp_...`" },
            ownerKey: { type: "http", scheme: "bearer", description: "The human owner's key (po_...): `ownerKey` in the answer of POST /agents/register. `Authorization: Bearer po_...`" },
            adminKey: { type: "http", scheme: "bearer", description: "An operator key: a named one (pa_..., from POST /admin/operators, shown once), or the bootstrap key, the value of ADMIN_API_KEY in the service's environment (/admin routes answer 404 while it is unset). `Authorization: Bearer pa_...`; every action is recorded in GET /admin/audit under the key's name" },
          },
        },
      },
    }),
  );
