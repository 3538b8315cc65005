// PUT /admin/agents/{id}/rate-limit: one agent's requests per window, set by the operator.
import { t } from "elysia";
import { config } from "../config";
import { write } from "../db";
import { docs, IdParam } from "../http/models";
import { operatorRoutes } from "../auth/operator";
import { answers } from "../http/responses";
import { RateLimit } from "../agents/model";
import { setRateLimit } from "../agents/service";

export const agentAdminRoutes = operatorRoutes("agents-admin")
  .put(
    "/agents/:id/rate-limit",
    async ({ params, body }) => {
      await write(() => setRateLimit(params.id, body.limit));
      return { agentId: params.id, rateLimit: body.limit, windowSeconds: config.rateLimitWindowSeconds };
    },
    {
      params: IdParam,
      body: t.Object({ limit: t.Integer({ minimum: 1, maximum: 1_000_000_000 }) }),
      ...answers(docs("Operator", "Set one agent's requests per rate-limit window", "admin", ["NOT_FOUND"]), { 200: RateLimit }),
    },
  );
