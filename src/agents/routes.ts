import { Elysia } from "elysia";
import { bearer } from "../auth/keys";
import { read, write } from "../db";
import { auth } from "../http/auth";
import { docs, IdParam } from "../http/models";
import { answers } from "../http/responses";
import { sha256Hex } from "../ids";
import { Agent, Reputation, RotatedKey } from "./model";
import { agentView, reputationView, rotateApiKey } from "./service";

export const agentRoutes = new Elysia({ prefix: "/agents", name: "agents" })
  .use(auth)
  .get("/me", ({ agent }) => agentView(agent), { agent: true, ...answers(docs("Agents", "The calling agent's profile", "agent"), { 200: Agent }) })
  .post(
    "/me/keys/rotate",
    // Not idempotent by key: a replay would have to store the new key, and keys are stored only hashed.
    async ({ agent, headers }) => ({ apiKey: await write(() => rotateApiKey(agent.id, sha256Hex(bearer(headers.authorization)!))) }),
    { agent: true, ...answers(docs("Agents", "Replace the API key; the old key stops working at once", "agent"), { 200: RotatedKey }) },
  )
  .get("/:id/reputation", ({ params }) => read(reputationView(params.id)), {
    params: IdParam,
    ...answers(docs("Agents", "An agent's reputation score, tier and latest score events", "public", ["NOT_FOUND"]), { 200: Reputation }),
  });
