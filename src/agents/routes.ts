import { Elysia } from "elysia";
import { config } from "../config";
import { write } from "../db";
import { webhookSecret as newWebhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { auth } from "../http/auth";
import { docs, IdParam } from "../http/models";
import { tierOf, TIERS } from "../reputation/tiers";
import { answers } from "../http/responses";
import { Agent, Registration, RegistrationBody, Reputation, RotatedKey } from "./model";
import { agentView, balancesView, getAgent, registerAgent, reputationView, rotateApiKey } from "./service";

export const agentRoutes = new Elysia({ prefix: "/agents", name: "agents" })
  .use(auth)
  .post(
    "/register",
    async ({ body, set }) => {
      if (body.webhookUrl) await assertCallable(body.webhookUrl, "webhookUrl");
      const webhookSecret = body.webhookUrl ? newWebhookSecret() : null;
      const { id, apiKey, ownerKey, address } = await write(() => registerAgent(body, webhookSecret));
      set.status = 201;
      const agent = getAgent(id);
      const tier = tierOf(0);
      return {
        agent: agentView(agent),
        apiKey,
        ownerKey,
        ...(webhookSecret ? { webhookSecret } : {}),
        wallet: { address, balances: balancesView(id) },
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
  )
  .get("/me", ({ agent }) => agentView(agent), { agent: true, ...answers(docs("Agents", "The calling agent's profile", "agent"), { 200: Agent }) })
  .post(
    "/me/keys/rotate",
    // Not idempotent by key: a replay would have to store the new key, and keys are stored only hashed.
    async ({ agent }) => ({ apiKey: await write(() => rotateApiKey(agent.id)) }),
    { agent: true, ...answers(docs("Agents", "Replace the API key; the old key stops working at once", "agent"), { 200: RotatedKey }) },
  )
  .get("/:id/reputation", ({ params }) => reputationView(params.id), {
    params: IdParam,
    ...answers(docs("Agents", "An agent's reputation score, tier and latest score events", "public", ["NOT_FOUND"]), { 200: Reputation }),
  });
