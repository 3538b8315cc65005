import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { AgentIdRef, Amount, Currency, docs, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Subscription, SubscriptionPage } from "./model";
import { FREQUENCIES } from "./periods";
import { applySubscriptionDue, cancelSubscription, chargeDueOf, CREATE_SUBSCRIPTION_ERRORS, createSubscription, getSubscription, listSubscriptions } from "./service";

const subscriptionDue = ({ params }: Due<"id">) => applySubscriptionDue(params.id);

export const subscriptionRoutes = new Elysia({ prefix: "/subscriptions", name: "subscriptions" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => createSubscription(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      recipientId: AgentIdRef(),
      amount: Amount({ minimum: 0.01 }),
      currency: Currency,
      frequency: t.Union(FREQUENCIES.map((frequency) => t.Literal(frequency))),
    }),
    ...answers(docs("Subscriptions", "Pay an agent every day, week or month; the first charge is taken now", "agent", [...CREATE_SUBSCRIPTION_ERRORS, ...ONCE_ERRORS]), {
      201: Subscription,
      202: Held,
    }),
  })
  .delete("/:id", ({ agent, params, write }) => write(() => cancelSubscription(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: subscriptionDue,
    ...answers(docs("Subscriptions", "Cancel (payer or recipient); no further charges", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: Subscription }),
  })
  .get("/mine", ({ agent, query, read }) => paged(query, (window) => read(listSubscriptions(agent.id, { role: query.role }, window))), {
    agent: true,
    query: t.Object({ ...PageQuery.properties, role: t.Optional(t.Union([t.Literal("payer"), t.Literal("recipient")])) }),
    due: ({ agent }: Due) => chargeDueOf(agent.id),
    ...answers(docs("Subscriptions", "Subscriptions the caller pays or receives, newest first", "agent"), { 200: SubscriptionPage }),
  })
  .get("/:id", ({ agent, params, read }) => read(getSubscription(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: subscriptionDue,
    ...answers(docs("Subscriptions", "A subscription the caller pays or receives", "agent", ["NOT_FOUND"]), { 200: Subscription }),
  });
