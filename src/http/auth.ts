// Route guards as Elysia macros: `{ agent: true }` resolves the calling agent (and counts it against
// its rate limit); `{ owner: true }` resolves the agent whose human owner calls. Both authenticate in
// `transform`, before body validation, so a request without a valid key is 401 (a valid key of the
// other kind 403) whatever its body.
import { Elysia } from "elysia";
import type { AgentRow } from "../agents/service";
import { agentFromHeader, ownerFromHeader } from "../auth/keys";
import { alreadyCounted, consumeAgent } from "./rate-limit";

const callers = new WeakMap<Request, AgentRow>();

function caller(request: Request): AgentRow {
  const agent = callers.get(request);
  if (!agent) throw new Error("auth: transform did not run");
  return agent;
}

export const auth = new Elysia({ name: "auth" }).macro({
  agent: {
    async transform({ headers, request, set }) {
      const agent = await agentFromHeader(headers.authorization);
      if (!alreadyCounted.has(request)) consumeAgent(agent, set.headers as Record<string, string | number>);
      callers.set(request, agent);
    },
    resolve: ({ request }) => ({ agent: caller(request) }),
  },
  owner: {
    async transform({ headers, request }) {
      callers.set(request, await ownerFromHeader(headers.authorization));
    },
    resolve: ({ request }) => ({ owner: caller(request) }),
  },
});
