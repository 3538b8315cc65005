// The operator's door: every /admin route is built with operatorRoutes(), each feature's in its own
// `admin-routes.ts` (src/app.ts mounts them after the agents' routes). It takes an operator key — a
// named one (pa_…) or ADMIN_API_KEY — and records every operator action in the audit log, in the
// action's own transaction: a route that changes something declares its `action`, and only that gives
// it a `write` (there is no other), which commits the op and its audit entry together.
//
//   .post("/deposits", async ({ body, write, status }) => status(201, await write(() => creditDeposit(body), body.agentId)), { action: "deposit.credit", … })
//   .post("/agents/:id/correction", ({ params, body, once }) => once(params.id, () => correct(params.id, body)), { action: "agent.correct", idempotent: 201, … })
import { Elysia } from "elysia";
import { authenticateOperator, operatorOf } from "../auth/callers";
import { read, write, type Op } from "../db";
import type { AgentId } from "../ids";
import { recordAudit, type AuditAction, type AuditEntry } from "../operators/audit";
import { answerOnce, applyOnce, OnceHeaders, type Knock } from "./once";

/** What the audit entry names as acted on: given, or read from what the op answered (a key it made). */
type Target<T> = string | ((result: T) => string) | undefined;

const actions = new WeakMap<Request, AuditAction>();

/** The audit entry of this request's action: who, what, on what, with the body it was asked with. */
function entryOf(knock: Knock, target: string | null): AuditEntry {
  const action = actions.get(knock.request);
  if (!action) throw new Error("door: an operator route that writes declares its `action`");
  const requestId = knock.set.headers["request-id"];
  return { operator: operatorOf(knock.request), action, target, details: (knock.body as Record<string, unknown> | undefined) ?? null, requestId: typeof requestId === "string" ? requestId : null };
}

/** An op and its audit entry, in one transaction: the API's routes and the operator console's forms alike. */
export function* withAudit<T>(op: () => Op<T>, entry: (result: T) => AuditEntry): Op<T> {
  const result = yield* op();
  yield* recordAudit(entry(result));
  return result;
}

/** An op and the audit entry of the request's action, in one transaction. */
const audited = <T>(op: () => Op<T>, knock: Knock, target: Target<T>) => withAudit(op, (result) => entryOf(knock, typeof target === "function" ? target(result) : (target ?? null)));

/**
 * The verbs of a route declared `action`: `write(op, target?)` runs the op with its audit entry;
 * `audit(target?)` records the action alone, for one that is no write (a backup handed out).
 */
function actionVerbs(action: AuditAction, knock: Knock) {
  actions.set(knock.request, action);
  return {
    write: <T>(op: () => Op<T>, target?: Target<T>) => write(() => audited(op, knock, target)),
    audit: (target?: string) => write(() => recordAudit(entryOf(knock, target ?? null))),
  };
}

/**
 * The verb of a route declared `idempotent: status` (with its `action`): `once(agentId, op)` runs the op
 * and its audit entry once per Idempotency-Key of this operator on that agent (a replay records nothing
 * again), and answers `status`.
 */
const onceVerb = (status: number, knock: Knock) => ({
  once: <T>(agentId: AgentId, op: () => Op<T>) => {
    const operator = operatorOf(knock.request);
    const holder = { agentId, keyId: null, scopeKeyId: `operator:${operator.id ?? operator.name}` };
    return answerOnce<T>(knock, holder, (scope) => applyOnce(scope, status, () => audited(op, knock, agentId)));
  },
});

/**
 * A plugin under /admin whose every route takes an operator key, with `read`, the `operator` who calls,
 * and the verbs its `action` gives. The key is checked in transform, before validation: without it
 * nothing about the route is revealed. "local": a scoped transform would also guard every route the
 * app registers after this plugin. The macros' names are not the agents' door's: macros of every
 * plugin meet in the app, where one name would stand for both.
 */
export const operatorRoutes = <const Name extends string>(name: Name) =>
  new Elysia({ prefix: "/admin", name })
    .decorate({ read })
    .onTransform({ as: "local" }, authenticateOperator)
    .resolve(({ request }) => ({ operator: operatorOf(request) }))
    .macro({
      action: (action: AuditAction) => ({ resolve: (knock) => actionVerbs(action, knock as unknown as Knock) }),
      idempotent: (status: number) => ({ headers: OnceHeaders, resolve: (knock) => onceVerb(status, knock as unknown as Knock) }),
    });
