import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS } from "../door";
import { AgentIdRef, Amount, Currency, docs, IdParam, Metadata } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Limits, Payment } from "./model";
import { getPayment, limitsView, SEND_PAYMENT_ERRORS, sendPayment } from "./service";

export const paymentRoutes = new Elysia({ prefix: "/payments", name: "payments" })
  .use(door)
  .post("/send", ({ agent, body, once }) => once(() => sendPayment(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      toAgentId: AgentIdRef(),
      amount: Amount({ minimum: 0.01 }),
      currency: Currency,
      reason: t.Optional(t.String({ maxLength: 500 })),
      metadata: t.Optional(Metadata),
    }),
    ...answers(docs("Payments", "Pay another agent (completed at once)", "agent", [...SEND_PAYMENT_ERRORS, ...ONCE_ERRORS]), { 201: Payment, 202: Held }),
  })
  .get("/my-limits", ({ agent }) => limitsView(agent), {
    agent: true,
    ...answers(docs("Payments", "The caller's per-transaction limit and every tier's", "agent"), { 200: Limits }),
  })
  .get("/:id", ({ agent, params, read }) => read(getPayment(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Payments", "A payment the caller sent or received", "agent", ["NOT_FOUND"]), { 200: Payment }),
  });
