// The door: every route of the API is reached through it, and every handler has the same shape
// (CONTRIBUTING.md, "Add a route"). A route declares who may call it and what its handler may do; the
// handler calls one service op through a verb and returns what it answers:
//
//   .post("/send", ({ agent, body, once }) => once(() => sendPayment(agent.id, body)), { agent: true, once: 201, … })
//   .get("/:betId", ({ agent, params, read }) => read(getBet(agent.id, params.betId)), { agent: true, due: …, … })
//
// Callers: `agent` (the agent key or a restricted key), `owner` (the owner key, po_…), `agentOwner` (the
// owner of the agent the path's `id` names), `agentOrOwner` (either: the owner acts as the agent key).
// Each is checked in `transform`, before the body is read (src/auth/callers.ts).
//
// Verbs: `read(op)` runs a read query; `write(op)` a write op (for an agent, acting for the key the request
// came with, so what it records and checks is that key's); `once(op)`, on a route declared `once: status`,
// the once-only write of a command (once.ts). Route files import neither the database nor a transaction:
// services are ops, and the door runs them (test/floors.test.ts keeps it so).
//
// `due`: the timed transition of what the route acts on (a bet's expiry, a loan's default…), applied
// before the handler by the feature's own applyIfDue, so a handler never sees an item that is past due.
import { Elysia } from "elysia";
import type { AgentRow } from "../agents/service";
import { actingKeysOf, authenticateAgent, authenticateAgentOwner, authenticateEither, authenticateOwner, caller } from "../auth/callers";
import { actingAs, read, write, type Op } from "../db";
import { OnceHeaders, onceVerbs } from "./once";

export { ONCE_ERRORS } from "./once";

/** The path's parameters a hook reads: their names (strings), or their names and types (`{ loanId: LoanId }`). */
type ParamsOf<P> = [P] extends [string] ? Record<P, string> : P;
/** What any route's `due` hook reads: the path's parameters (`P`, see ParamsOf), the query, the body. */
export type DueContext<P = never> = { params: Record<string, string> & ParamsOf<P>; query: Record<string, string | undefined>; body: Record<string, unknown> };
/** The same on an agent's route, with the calling agent. */
export type Due<P = never> = DueContext<P> & { agent: AgentRow };
/** The same on an owner's route, with the agent whose owner calls. */
export type OwnerDue<P = never> = DueContext<P> & { owner: AgentRow };
// Declared as a method, so a hook that reads more than every route has (Due<"betId">) is one the macro takes.
type DueHook = { hook(context: DueContext): Promise<unknown> }["hook"];

/** The agent, the restricted key (null: the agent's own key) and `write` acting for that key. */
function agentAt({ request }: { request: Request }) {
  const found = caller(request);
  const { keyId } = actingKeysOf(request);
  return { ...found, write: <T>(op: () => Op<T>) => write(() => actingAs(keyId, op())) };
}

const ownerAt = ({ request }: { request: Request }): { owner: AgentRow } => ({ owner: caller(request).agent });

export const door = new Elysia({ name: "door" }).decorate({ read, write }).macro({
  agent: { transform: authenticateAgent, resolve: agentAt },
  owner: { transform: authenticateOwner, resolve: ownerAt },
  agentOwner: { transform: authenticateAgentOwner, resolve: ownerAt },
  agentOrOwner: { transform: authenticateEither, resolve: agentAt },
  once: (status: number) => ({ headers: OnceHeaders, resolve: (knock) => onceVerbs(status, knock) }),
  due: (apply: DueHook) => ({
    async beforeHandle(context) {
      await apply(context as unknown as DueContext);
    },
  }),
});
