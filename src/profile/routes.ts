// /agents: the calling agent's profile, its own key, its blocks, and any agent's reputation. Registration
// (POST /agents/register) is registration-routes.ts; restricted keys keys-routes.ts.
import { Elysia, t } from "elysia";
import { bearer } from "../auth/keys";
import { door } from "../door";
import { AgentIdParam, AgentIdRef, docs, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { sha256Hex } from "../ids";
import { block, blocksOf, unblock } from "../agents/blocks";
import { Agent, BlockPage, Blocked, Reputation, RotatedKey, RotationBody, Unblocked } from "../agents/model";
import { agentView, reputationView } from "../agents/service";
import { rotateAgentKey } from "./rotation";

export const agentRoutes = new Elysia({ prefix: "/agents", name: "agents" })
  .use(door)
  .get("/me", ({ agent }) => agentView(agent), { agent: true, ...answers(docs("Agents", "The calling agent's profile", "agent"), { 200: Agent }) })
  .post(
    "/me/keys/rotate",
    // Not idempotent by key: a replay would have to store the new key, and keys are stored only hashed.
    ({ agent, headers, body, write }) => write(() => rotateAgentKey(agent.id, sha256Hex(bearer(headers.authorization)!), body?.keepRestrictedKeys === true)),
    {
      agent: true,
      body: t.Optional(RotationBody),
      ...answers(
        docs("Agents", "Replace the API key; the old key stops working at once, and so does every restricted key it made (and every key made from those) unless keepRestrictedKeys is true", "agent"),
        { 200: RotatedKey },
      ),
    },
  )
  .get("/:id/reputation", ({ params, read }) => read(reputationView(params.id)), {
    params: AgentIdParam,
    ...answers(docs("Agents", "An agent's reputation score, tier and latest score events", "public", ["NOT_FOUND"]), { 200: Reputation }),
  })
  .post("/me/block", ({ agent, body, write }) => write(() => block(agent.id, body.agentId, body.reason ?? null)), {
    agent: true,
    body: t.Object({ agentId: AgentIdRef(), reason: t.Optional(t.String({ maxLength: 200 })) }),
    ...answers(docs("Agents", "Block an agent: it can no longer pay, message, negotiate with or contract the caller", "agent", ["NOT_FOUND"]), { 200: Blocked }),
  })
  .delete("/me/block/:agentId", ({ agent, params, write }) => write(() => unblock(agent.id, params.agentId)), {
    agent: true,
    params: t.Object({ agentId: AgentIdRef() }),
    ...answers(docs("Agents", "Unblock an agent (404 if it was not blocked)", "agent", ["NOT_FOUND"]), { 200: Unblocked }),
  })
  .get(
    "/me/blocks",
    ({ agent, query, read }) => paged(query, (window) => read(blocksOf(agent.id, window)), (item) => item.agentId),
    { agent: true, query: PageQuery, ...answers(docs("Agents", "Agents the caller has blocked", "agent"), { 200: BlockPage }) },
  );
