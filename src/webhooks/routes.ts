import { Elysia, t } from "elysia";
import { WebhookUrl } from "../agents/model";
import { door } from "../door";
import { docs, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Resent, Webhook, WebhookDeliveryPage } from "./model";
import { assertWebhookCallable, deliveriesOf, resendDelivery, rotateWebhookSecret, setWebhook } from "./service";

export const webhookRoutes = new Elysia({ prefix: "/agents/me", name: "webhooks" })
  .use(door)
  .put("/webhook", ({ agent, body, write }) => write(() => setWebhook(agent.id, body.webhookUrl)), {
    agent: true,
    body: t.Object({ webhookUrl: WebhookUrl }),
    beforeHandle: ({ body }) => assertWebhookCallable(body.webhookUrl),
    ...answers(docs("Webhooks", "Set the webhook URL (returns the signing secret) or null to stop deliveries", "agent"), { 200: Webhook }),
  })
  .post("/webhook/secret", ({ agent, write }) => write(() => rotateWebhookSecret(agent.id)), {
    agent: true,
    ...answers(docs("Webhooks", "Replace the signing secret (returned once; the old one stops at once)", "agent", ["INVALID_STATE"]), { 200: Webhook }),
  })
  .get("/webhook/deliveries", ({ agent, query, read }) => paged(query, (window) => read(deliveriesOf(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("Webhooks", "Every delivery attempt to the caller's webhook, newest first", "agent"), { 200: WebhookDeliveryPage }),
  })
  .post(
    "/webhook/deliveries/:id/resend",
    async ({ agent, params, set }) => {
      const queued = await resendDelivery(agent.id, params.id);
      set.status = 202;
      return queued;
    },
    {
      agent: true,
      params: t.Object({ id: t.String({ format: "uuid" }) }),
      ...answers(
        docs("Webhooks", "Send a failed delivery's event again (once, now; deliveries are never retried on their own); at most 5 times an hour per event and 60 per agent", "agent", ["NOT_FOUND", "INVALID_STATE"]),
        { 202: Resent },
      ),
    },
  );
