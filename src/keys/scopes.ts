// The one table of what a restricted key's scopes allow: each scope names the routes it opens (method
// and path as the router declares them). The auth macro checks a restricted key's request against it,
// and MCP shows and calls a tool only if its route is in one of the key's scopes. A route in no scope
// (POST /agents/me/keys/rotate) is refused to every restricted key; the agent key itself opens them all.

export const SCOPES = ["read", "pay", "message", "negotiate", "lend", "bet", "contract", "subscribe", "book", "withdraw", "x402", "manage"] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_ROUTES: Record<Scope, readonly string[]> = {
  read: [
    "GET /agents/me",
    // Public reads (no key needed over HTTP), in the table so that MCP shows their tools to a reading key.
    "GET /agents/:id/reputation",
    "GET /services/discover",
    "GET /services/:id",
    "GET /agents/me/blocks",
    "GET /agents/me/keys",
    "GET /agents/me/webhook/deliveries",
    "GET /messages/inbox",
    "GET /messages/unread-count",
    "GET /messages/:id",
    "GET /negotiations/mine",
    "GET /negotiations/:id",
    "GET /approvals/:id",
    "GET /payments/my-limits",
    "GET /payments/:id",
    "GET /wallets/balance",
    "GET /wallets/history",
    "GET /wallets/blockchain",
    "GET /wallets/withdrawals",
    "GET /wallets/withdrawals/:id",
    "GET /x402/payments",
    "GET /x402/payments/:id",
    "GET /x402/channels",
    "GET /lending/offers",
    "GET /lending/my-loans",
    "GET /lending/loans/:loanId",
    "GET /betting/open",
    "GET /betting/my-bets",
    "GET /betting/:betId",
    "GET /contracts/mine",
    "GET /contracts/:id",
    "GET /subscriptions/mine",
    "GET /subscriptions/:id",
    "GET /bookings/mine",
    "GET /bookings/:id",
  ],
  pay: ["POST /payments/send"],
  message: ["POST /messages", "POST /messages/:messageId/read"],
  negotiate: ["POST /negotiations", "POST /negotiations/:id/counter", "POST /negotiations/:id/accept", "POST /negotiations/:id/reject"],
  lend: ["POST /lending/offers", "DELETE /lending/offers/:offerId", "POST /lending/borrow", "POST /lending/repay/:loanId"],
  bet: ["POST /betting", "DELETE /betting/:betId", "POST /betting/:betId/accept", "POST /betting/:betId/resolve"],
  contract: ["POST /contracts", "POST /contracts/:id/sign", "POST /contracts/:id/fulfill", "POST /contracts/:id/cancel"],
  subscribe: ["POST /subscriptions", "DELETE /subscriptions/:id"],
  book: ["POST /services", "PATCH /services/:id", "DELETE /services/:id", "POST /quotes", "POST /bookings"],
  withdraw: ["POST /wallets/withdraw"],
  x402: [
    "POST /x402/pay",
    // Closing returns the rest of a channel's deposit: the key that pays over channels may end them.
    "POST /x402/channels/:id/close",
    // Selling: the seller's server verifies and settles its buyers' payments with a key of this scope.
    "GET /x402/facilitator/supported",
    "POST /x402/facilitator/verify",
    "POST /x402/facilitator/settle",
    "GET /x402/facilitator/discovery/resources",
  ],
  manage: [
    "PUT /agents/me/webhook",
    "POST /agents/me/webhook/secret",
    "POST /agents/me/webhook/deliveries/:id/resend",
    "POST /agents/me/block",
    "DELETE /agents/me/block/:agentId",
    "POST /agents/me/keys",
    "DELETE /agents/me/keys/:id",
  ],
};

/** Routes every restricted key may call, whatever its scopes: a key reading itself (agentbank mcp learns its tools so). */
const EVERY_KEY_ROUTES = new Set(["GET /agents/me/keys/current"]);
export const openToEveryKey = (method: string, path: string) => EVERY_KEY_ROUTES.has(`${method.toUpperCase()} ${path}`);

const SCOPE_OF_ROUTE = new Map<string, Scope>(SCOPES.flatMap((scope) => SCOPE_ROUTES[scope].map((route) => [route, scope] as const)));

/** The scope that opens a route (`method`, the router's path pattern); null: no restricted key may call it. */
export const scopeOfRoute = (method: string, path: string): Scope | null => SCOPE_OF_ROUTE.get(`${method.toUpperCase()} ${path}`) ?? null;
