// GET /admin/agents: the operator's search of agents (profile/search.ts); PUT /admin/agents/{id}/rate-limit: one agent's requests per window, set by the operator; POST
// /admin/agents/{id}/freeze and /unfreeze: the operator's brake (profile/freeze.ts).
import { t } from "elysia";
import { config } from "../config";
import { AgentIdParam, docs, paged, PageQuery } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { Freeze, FreezeBody, RateLimit } from "../agents/model";
import { setRateLimit } from "../agents/service";
import { setFrozen } from "./freeze";
import { AgentSummaryPage } from "./model";
import { searchAgents } from "./search";

export const agentAdminRoutes = operatorRoutes("agents-admin")
  .get("/agents", ({ query, read }) => paged(query, (window) => read(searchAgents(query.q, window))), {
    query: t.Object({
      ...PageQuery.properties,
      q: t.Optional(t.String({ minLength: 1, maxLength: 254, description: "an agent's id, or a piece of its name or of an owner's e-mail address (any case)" })),
    }),
    ...answers(docs("Operator", "Agents, newest first, found by id, name or owner's address: each with its owner, balances and brakes", "admin"), { 200: AgentSummaryPage }),
  })
  .put(
    "/agents/:id/rate-limit",
    ({ params, body, write }) => write(() => setRateLimit(params.id, body.limit, config.rateLimitWindowSeconds), params.id),
    {
      action: "agent.rate-limit",
      params: AgentIdParam,
      body: t.Object({ limit: t.Integer({ minimum: 1, maximum: 1_000_000_000 }) }),
      ...answers(docs("Operator", "Set one agent's requests per rate-limit window", "admin", ["NOT_FOUND"]), { 200: RateLimit }),
    },
  )
  .post("/agents/:id/freeze", ({ params, body, write }) => write(() => setFrozen(params.id, "operator", true, body?.reason ?? null), params.id), {
    action: "agent.freeze",
    params: AgentIdParam,
    body: FreezeBody,
    ...answers(
      docs("Operator", "Freeze an agent: every outflow it starts is refused (403 AGENT_FROZEN) until the operator unfreezes it, whatever its owner does. Freezing a frozen agent changes nothing", "admin", ["NOT_FOUND"]),
      { 200: Freeze },
    ),
  })
  .post("/agents/:id/unfreeze", ({ params, body, write }) => write(() => setFrozen(params.id, "operator", false, body?.reason ?? null), params.id), {
    action: "agent.unfreeze",
    params: AgentIdParam,
    body: FreezeBody,
    ...answers(docs("Operator", "Lift the operator's freeze of an agent (its owner's freeze, if any, stays)", "admin", ["NOT_FOUND"]), { 200: Freeze }),
  });
