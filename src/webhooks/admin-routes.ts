// GET /admin/webhooks/failing: every agent's delivery attempts that failed, for the operator to see
// which webhooks do not work (an agent sends one again itself, or its owner from the console).
import { t } from "elysia";
import { operatorRoutes } from "../door/operator";
import { AgentIdRef, docs, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { FailedDeliveryPage } from "./model";
import { failingDeliveries } from "./service";

export const webhookAdminRoutes = operatorRoutes("webhooks-admin").get(
  "/webhooks/failing",
  ({ query, read }) => paged(query, (window) => read(failingDeliveries(query.agentId, window))),
  {
    query: t.Object({ ...PageQuery.properties, agentId: t.Optional(AgentIdRef({ description: "only this agent's" })) }),
    ...answers(docs("Operator", "Webhook delivery attempts that failed (an error status, a timeout, a refused address), across agents, newest first", "admin"), { 200: FailedDeliveryPage }),
  },
);
