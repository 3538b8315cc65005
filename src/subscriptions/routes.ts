import { Elysia, t } from "elysia";
import { auth } from "../auth/macros";
import { Amount, Currency, docs, IdParam, paged, PageQuery, Uuid } from "../http/models";
import { mutation } from "../auth/mutation";
import { FREQUENCIES } from "./periods";
import { cancelSubscription, createSubscription, getSubscription, listSubscriptions } from "./service";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Subscription, SubscriptionPage } from "./model";

export const subscriptionRoutes = new Elysia({ prefix: "/subscriptions", name: "subscriptions" })
  .use(auth)
  .post(
    "",
    ({ agent, body, headers, request, set }) =>
      mutation({ agentId: agent.id, headers, request, body, set }, 201, () => createSubscription(agent.id, body)),
    {
      agent: true,
      body: t.Object({
        recipientId: Uuid,
        amount: Amount({ minimum: 0.01 }),
        currency: Currency,
        frequency: t.Union(FREQUENCIES.map((frequency) => t.Literal(frequency))),
      }),
      ...answers(docs("Subscriptions", "Pay an agent every day, week or month; the first charge is taken now", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 201: Subscription, 202: Held }),
    },
  )
  .delete("/:id", ({ agent, params }) => cancelSubscription(agent.id, params.id), {
    agent: true,
    params: IdParam,
    ...answers(docs("Subscriptions", "Cancel (payer or recipient); no further charges", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: Subscription }),
  })
  .get(
    "/mine",
    ({ agent, query }) => paged(query, (window) => listSubscriptions(agent.id, { role: query.role }, window)),
    {
      agent: true,
      query: t.Object({ ...PageQuery.properties, role: t.Optional(t.Union([t.Literal("payer"), t.Literal("recipient")])) }),
      ...answers(docs("Subscriptions", "Subscriptions the caller pays or receives, newest first", "agent"), { 200: SubscriptionPage }),
    },
  )
  .get("/:id", ({ agent, params }) => getSubscription(agent.id, params.id), {
    agent: true,
    params: IdParam,
    ...answers(docs("Subscriptions", "A subscription the caller pays or receives", "agent", ["NOT_FOUND"]), { 200: Subscription }),
  });
