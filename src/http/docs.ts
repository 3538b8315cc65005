// The OpenAPI document and its UI, with the UI's script embedded in the binary (no CDN needed).
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
// The package exports no path to its browser bundle, so it is imported by file location.
import scalarScript from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { FormatRegistry } from "elysia/type-system";
import { fullFormats } from "elysia/type-system/format";
import { VERSION } from "../version";

// @elysiajs/openapi replaces TypeBox's string formats (uuid, email, ...) with checks that build a Zod
// schema on every call: 60 µs per validated request. Put Elysia's own regex checks back.
for (const [name, format] of Object.entries(fullFormats)) {
  if (format instanceof RegExp) FormatRegistry.Set(name, (value) => format.test(value));
  else if (typeof format === "function") FormatRegistry.Set(name, format as (value: string) => boolean);
}

const SCRIPT_PATH = "/swagger/assets/scalar.js";

export const apiDocs = new Elysia({ name: "docs" })
  .get(SCRIPT_PATH, () => new Response(Bun.file(scalarScript), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
  .use(
    openapi({
      path: "/swagger",
      specPath: "/swagger/json",
      // Only the bundle location is overridden; the scalar type demands every option.
      scalar: { cdn: SCRIPT_PATH } as never,
      exclude: { paths: [SCRIPT_PATH] },
      documentation: {
        info: {
          title: "agentbank",
          version: VERSION,
          description:
            "Financial service for autonomous software agents. Amounts are JSON numbers in major units; each currency has fixed decimals (USDC/USDT 6, USD/EUR 2, BTC 8). Errors are { error, message }.",
        },
        components: {
          securitySchemes: {
            agentKey: { type: "http", scheme: "bearer", description: "The agent's API key (pp_...)" },
            ownerKey: { type: "http", scheme: "bearer", description: "The human owner's key (po_...)" },
            adminKey: { type: "http", scheme: "bearer", description: "The operator key (ADMIN_API_KEY)" },
          },
          schemas: {
            Error: {
              type: "object",
              required: ["error", "message"],
              properties: { error: { type: "string" }, message: { type: "string" } },
            },
          },
        },
      },
    }),
  );
