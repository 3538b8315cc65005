// POST /agents/register: an agent, its accounts, its keys and its custodial deposit address, in one
// write op. It sits above agents and chain (the address comes from the chain's key tree), so neither
// reaches up to the other.
import { Elysia } from "elysia";
import { assignDepositAddress } from "../chain/addresses";
import { config } from "../config";
import { write, type Query } from "../db";
import { docs } from "../http/models";
import { answers } from "../http/responses";
import { webhookSecret as newWebhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { tierOf, TIERS } from "../agents/tiers";
import { Registration, RegistrationBody } from "../agents/model";
import { agentView, balancesView, getAgent, registerAgent, type Registration as Input } from "../agents/service";

function* register(input: Input, webhookSecret: string | null): Query<{ agent: ReturnType<typeof agentView>; apiKey: string; ownerKey: string; address: string; balances: { currency: string; available: number; held: number }[] }> {
  const { id, apiKey, ownerKey } = yield* registerAgent(input, webhookSecret);
  const address = yield* assignDepositAddress(id);
  return { agent: agentView(yield* getAgent(id)), apiKey, ownerKey, address, balances: yield* balancesView(id) };
}

export const registrationRoutes = new Elysia({ prefix: "/agents", name: "registration" })
  .post(
    "/register",
    async ({ body, set }) => {
      if (body.webhookUrl) await assertCallable(body.webhookUrl, "webhookUrl");
      const webhookSecret = body.webhookUrl ? newWebhookSecret() : null;
      const { agent, apiKey, ownerKey, address, balances } = await write(() => register(body, webhookSecret));
      set.status = 201;
      const tier = tierOf(0);
      return {
        agent,
        apiKey,
        ownerKey,
        ...(webhookSecret ? { webhookSecret } : {}),
        wallet: { address, balances },
        onboarding: {
          message: "Store apiKey and ownerKey now: they are shown only once.",
          authentication: "Send Authorization: Bearer <apiKey> on every request.",
          fund: "Deposit USDC to your wallet address (chain) or ask the operator for a deposit (POST /admin/deposits).",
          limits: {
            tier: tier.tier,
            maxPerTransaction: tier.maxPerTransaction,
            rateLimit: { requests: config.rateLimitDefault, windowSeconds: config.rateLimitWindowSeconds },
          },
          tiers: TIERS.map(({ tier, maxPerTransaction }) => ({ tier, maxPerTransaction })),
          docs: "/swagger",
        },
      };
    },
    { body: RegistrationBody, ...answers(docs("Agents", "Register an agent: returns its API key and owner key once", "public"), { 201: Registration }) },
  );
