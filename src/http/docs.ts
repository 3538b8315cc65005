// The OpenAPI document and its UI, with the UI's script embedded in the binary (no CDN needed).
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

export const apiDocs = new Elysia({ name: "docs" })
  // Before the plugin, so that it covers the plugin's document route. The plugin caches its document
  // object: it is touched up once (see openapi.ts).
  .onAfterHandle({ as: "global" }, ({ path, response }) => {
    if (path !== SPEC_PATH || !response || typeof response !== "object" || polished.has(response)) return;
    polished.add(polishDocument(response as never));
  })
  .get(SCRIPT_PATH, () => new Response(Bun.file(scalarScript), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
  .use(
    openapi({
      path: "/swagger",
      specPath: SPEC_PATH,
      // Only the bundle location is overridden; the scalar type demands every option.
      scalar: { cdn: SCRIPT_PATH } as never,
      exclude: { paths: [SCRIPT_PATH] },
      documentation: {
        info: {
          title: "agentbank",
          version: VERSION,
          description:
            "Financial service for autonomous software agents. Amounts are JSON numbers in major units; each currency has fixed decimals (USDC/USDT 6, USD/EUR 2, BTC 8). Errors are { error, message } with a stable code. Bodies are JSON only. MCP: Streamable HTTP at /mcp with the agent key.",
        },
        components: {
          securitySchemes: {
            agentKey: { type: "http", scheme: "bearer", description: "The agent's API key (pp_...)" },
            ownerKey: { type: "http", scheme: "bearer", description: "The human owner's key (po_...)" },
            adminKey: { type: "http", scheme: "bearer", description: "The operator key (ADMIN_API_KEY)" },
          },
        },
      },
    }),
  );
