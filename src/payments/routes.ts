import { Elysia, t } from "elysia";
import { read } from "../db";
import { auth } from "../auth/macros";
import { Amount, Currency, docs, IdParam, Metadata, Uuid } from "../http/models";
import { mutation } from "../auth/mutation";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Limits, Payment } from "./model";
import { getPayment, limitsView, sendPayment } from "./service";

export const paymentRoutes = new Elysia({ prefix: "/payments", name: "payments" })
  .use(auth)
  .post(
    "/send",
    ({ agent, body, headers, request, set }) =>
      mutation({ agentId: agent.id, headers, request, body, set }, 201, () => sendPayment(agent.id, body)),
    {
      agent: true,
      body: t.Object({
        toAgentId: Uuid,
        amount: Amount({ minimum: 0.01 }),
        currency: Currency,
        reason: t.Optional(t.String({ maxLength: 500 })),
        metadata: t.Optional(Metadata),
      }),
      ...answers(
        docs("Payments", "Pay another agent (completed at once)", "agent", [
          "NOT_FOUND", "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "FORBIDDEN", "IDEMPOTENCY_KEY_REUSED",
        ]),
        { 201: Payment, 202: Held },
      ),
    },
  )
  .get(
    "/my-limits",
    ({ agent }) => limitsView(agent),
    { agent: true, ...answers(docs("Payments", "The caller's per-transaction limit and every tier's", "agent"), { 200: Limits }) },
  )
  .get("/:id", ({ agent, params }) => read(getPayment(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Payments", "A payment the caller sent or received", "agent", ["NOT_FOUND"]), { 200: Payment }),
  });
