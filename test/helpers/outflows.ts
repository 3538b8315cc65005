// The outflow paths an owner's policy governs, made through the API as an agent would: one per kind
// that needs no chain (x402 and withdrawals: owner-policies-chain.test.ts).
import type { Agent, TestServer } from "./server";

/** Each outflow path: how to make it (amount in USDC), and how to count what it created. */
export type OutflowPath = {
  name: string;
  make: (agent: Agent, amount: number) => Promise<{ status: number; body: any }>;
  /** How many of these the agent has (bets, offers, …): an outflow must create exactly one, once. */
  count: (agent: Agent) => Promise<number>;
  /** What making it pays into the agent's available balance at once (a borrow: its principal); none when absent. */
  received?: (amount: number) => number;
};

/** The agent's available balance after `path` took `amount` out of `start` (and paid in what it pays back at once). */
export const availableAfter = (path: OutflowPath, start: number, amount: number) => start - amount + (path.received?.(amount) ?? 0);

/** Who the paths pay: `counterparty` (funded: it opens the bets an agent accepts) and `provider` (lists the services booked). */
export type OutflowParties = { counterparty: Agent; provider: Agent };

/** The paths, on the server and parties the test has when they run (both are made in its beforeAll). */
export function outflowPaths(server: () => TestServer, parties: () => OutflowParties): OutflowPath[] {
  const countOf = async (agent: Agent, path: string) => (await server().request("GET", path, { key: agent.apiKey })).body.pagination.total as number;
  return [
    {
      name: "payment",
      make: (agent, amount) => server().request("POST", "/payments/send", { key: agent.apiKey, body: { toAgentId: parties().counterparty.id, amount, currency: "USDC" } }),
      count: async (agent) => (await server().request("GET", "/wallets/history?limit=100", { key: agent.apiKey })).body.data.filter((row: any) => row.type === "PAYMENT_SENT").length,
    },
    {
      name: "bet",
      make: (agent, amount) => server().request("POST", "/betting", { key: agent.apiKey, body: { description: "rain", condition: "it rains", amount, currency: "USDC" } }),
      count: (agent) => countOf(agent, "/betting/my-bets"),
    },
    {
      name: "bet acceptance",
      make: async (agent, amount) => {
        const bet = await server().request("POST", "/betting", { key: parties().counterparty.apiKey, body: { description: "sun", condition: "it shines", amount, currency: "USDC" } });
        return server().request("POST", `/betting/${bet.body.id}/accept`, { key: agent.apiKey });
      },
      count: (agent) => countOf(agent, "/betting/my-bets"),
    },
    {
      name: "loan offer",
      make: (agent, amount) => server().request("POST", "/lending/offers", { key: agent.apiKey, body: { amount, currency: "USDC", interestRate: 5, durationDays: 30, collateralPercent: 50 } }),
      count: async (agent) => (await server().request("GET", "/lending/offers?limit=100", { key: agent.apiKey })).body.data.filter((offer: any) => offer.lenderId === agent.id).length,
    },
    {
      name: "contract",
      make: (agent, amount) =>
        server().request("POST", "/contracts", {
          key: agent.apiKey,
          body: { counterpartyId: parties().counterparty.id, title: "job", description: "a job", escrowAmount: amount, currency: "USDC", conditions: [{ id: "done", type: "DELIVERY", description: "done", params: {} }] },
        }),
      count: (agent) => countOf(agent, "/contracts/mine"),
    },
    {
      name: "subscription",
      make: (agent, amount) => server().request("POST", "/subscriptions", { key: agent.apiKey, body: { recipientId: parties().counterparty.id, amount, currency: "USDC", frequency: "MONTHLY" } }),
      count: (agent) => countOf(agent, "/subscriptions/mine"),
    },
    {
      name: "booking",
      make: async (agent, amount) => {
        const listing = await server().request("POST", "/services", { key: parties().provider.apiKey, body: { name: `job ${amount}`, description: "", category: "work", price: amount, currency: "USDC", pricingUnit: "FIXED" } });
        const quote = await server().request("POST", "/quotes", { key: agent.apiKey, body: { serviceId: listing.body.id } });
        return server().request("POST", "/bookings", { key: agent.apiKey, body: { quoteId: quote.body.id } });
      },
      count: (agent) => countOf(agent, "/bookings/mine"),
    },
    {
      // Interest 0 and collateral 100 %: the outflow (principal + interest) and what is held (the collateral) are the amount.
      name: "borrow",
      make: async (agent, amount) => {
        const offer = await server().request("POST", "/lending/offers", { key: parties().counterparty.apiKey, body: { amount, currency: "USDC", interestRate: 0, durationDays: 30, collateralPercent: 100 } });
        return server().request("POST", "/lending/borrow", { key: agent.apiKey, body: { offerId: offer.body.id } });
      },
      count: (agent) => countOf(agent, "/lending/my-loans"),
      received: (amount) => amount,
    },
  ];
}
