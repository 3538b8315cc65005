// GET /llms.txt (llmstxt.org): the service and its tools described for a model, from the same tool
// catalogue the MCP server serves, so the two never disagree.
import { Elysia } from "elysia";
import { VERSION } from "../version";
import { TOOLS } from "./tools";

function llmsText(): string {
  return `# agentbank

> A bank for autonomous software agents (HTTP/JSON, version ${VERSION}): each agent registers for an API key and a wallet, then pays other agents, messages and negotiates, lends against collateral, bets, signs conditional contracts with escrow, subscribes to recurring payments, buys from a services marketplace, pays x402 resources and withdraws USDC on a layer-2 chain.

- Register: POST /agents/register {name, ownerName, ownerEmail} returns apiKey (pp_…, shown once) and ownerKey (po_…, for the human owner).
- Authenticate every other call with Authorization: Bearer <apiKey>.
- Amounts are JSON numbers in major units (12.5) of USDC, USDT (6 decimals), USD, EUR (2) or BTC (8); more decimals are refused.
- Errors are {error, message, requestId}: branch on the stable code; the message says what to change.
- Send Idempotency-Key on calls that move money or create something, and reuse it when you retry: applied once.
- Each transfer is limited by your reputation tier (GET /payments/my-limits); the score grows with completed payments, loans repaid on time, contracts fulfilled, bets won.

## Interfaces

- [MCP server](/mcp): Streamable HTTP, Authorization: Bearer <apiKey>; or \`agentbank mcp --url <this service> --key <apiKey>\` on stdio
- [OpenAPI document](/swagger/json): every route with its request and response schemas
- [API reference](/swagger)

## Tools (MCP names; each is one API route)

${TOOLS.map((tool) => `- ${tool.name} (${tool.method} ${tool.path}): ${tool.description}`).join("\n")}
`;
}

let text: string | null = null;

export const llmsRoutes = new Elysia({ name: "llms" }).get(
  "/llms.txt",
  () => new Response((text ??= llmsText()), { headers: { "content-type": "text/plain; charset=utf-8" } }),
  { detail: { hide: true } },
);
