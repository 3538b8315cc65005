// The operator console's door: every page and form of /operator, on macros as the owner console's are
// (console/door.ts), with the same CSRF rules, and the operator API's audit (door/operator.ts):
//
//   .get("/agents", async ({ session, render, read, query }) => render("Agents", OPERATOR_PATH, …), { operatorPage: true, … })
//   .post("/agents/:id/freeze", async ({ params, body, write }) => { await write(() => setFrozen(…), params.id); return redirect(…); }, { operatorAction: "agent.freeze", body: Form, … })
//
// `operatorPage: true`: behind sign-in; signed out, the sign-in page. `operatorForm: true`: a form post
// behind sign-in (else 401), with the session's CSRF token (else 403) and no reserved field name (else
// 400), read leniently as the owner console's forms are. `operatorAction: action`: the same, and the
// only way to a `write(op, target?)`, which commits the op with its audit entry (the signed-in
// operator's name, the request id, the form's fields) in one transaction, and `once(agentId, key, op)`,
// the same once per form key (the confirmation page's) as the API's Idempotency-Key. Every one of
// them answers 404 when no operator key can exist (ADMIN_API_KEY unset), as /admin does. A service's
// refusal (ApiError) is shown on a signed-in page at its status.
import { Elysia } from "elysia";
import { answerNow, field, reservedField, reservedMessage } from "../console/door";
import { html } from "../console/views";
import { read, write, type Op } from "../db";
import { withAudit } from "../door/operator";
import { applyOnce } from "../door/once";
import { ApiError, notFound } from "../errors";
import type { AgentId } from "../ids";
import { validateKey } from "../idempotency/idempotency";
import type { AuditAction, AuditEntry } from "../operators/audit";
import { sameToken } from "../owners/sessions";
import { consoleOpen, currentOperatorSession, OPERATOR_PATH, type OperatorSession } from "./sessions";
import { operatorLayout, operatorRefused } from "./views";
import { signInPage } from "./sign-in";

/** A signed-in page of `current`'s section (the menu marks it), at `status` (200). */
export type Render = (title: string, current: string, body: string, status?: number) => Response;
type Context = { request: Request; body: unknown; set: { headers: Record<string, unknown> } };

function signed(session: OperatorSession) {
  const render: Render = (title, current, body, status) => operatorLayout({ title, operator: session.operator.name, csrf: session.csrfToken, current }, body, status);
  return {
    session,
    render,
    // The error handler asks it (src/http/errors.ts): a service's refusal, on a page of the console.
    showRefusal: async (error: ApiError) => render("Refused", "", html`<section><p class="error">${error.message}</p><p><a href="${OPERATOR_PATH}">Back</a></p></section>`, error.status),
  };
}

async function signedIn(request: Request) {
  if (!consoleOpen()) throw notFound("route");
  return currentOperatorSession(request);
}

/** A form post's checks: signed in, its CSRF token, no reserved field; the refusal page ends the request. */
async function checkedForm({ request, body }: Context) {
  const session = await signedIn(request);
  if (!session) return answerNow(signInPage(request, "Sign in first.", 401));
  if (!sameToken(session.csrfToken, field(body, "csrf"))) return answerNow(operatorRefused("Missing or wrong CSRF token. Reload the page and try again."));
  const reserved = reservedField(body);
  if (reserved !== null) return answerNow(operatorRefused(reservedMessage(reserved), 400));
  return signed(session);
}

/** The console's own fields, not what the operator asked for: the CSRF token and the confirmation's "yes". */
const FRAME_FIELDS = new Set(["csrf", "confirm"]);

/** What the form asked, for its audit entry: its fields without the console's own. */
function detailsOf(body: unknown): Record<string, unknown> {
  const details: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(body ?? {})) if (!FRAME_FIELDS.has(name)) details[name] = value;
  return details;
}

function actionVerbs(action: AuditAction, session: OperatorSession, { request, body, set }: Context) {
  const requestId = set.headers["request-id"];
  const entry = (target: string | null): AuditEntry => ({ operator: session.operator, action, target, details: detailsOf(body), requestId: typeof requestId === "string" ? requestId : null });
  return {
    write: <T>(op: () => Op<T>, target?: string) => write(() => withAudit(op, () => entry(target ?? null))),
    /** Once per `key` of this operator on that agent: a second post of the same confirmation changes nothing. */
    once: async <T>(agentId: AgentId, key: string | undefined, op: () => Op<T>) => {
      validateKey(key, "the form's key");
      const holder = { agentId, keyId: null, scopeKeyId: `operator:${session.operator.id ?? session.operator.name}` };
      const outcome = await applyOnce({ ...holder, key, route: `${request.method} ${new URL(request.url).pathname}`, body: detailsOf(body) }, 201, () => withAudit(op, () => entry(agentId)));
      return outcome.body as T;
    },
  };
}

/** What a form of an `operatorAction` route resolves, for a helper of its handler. */
export type Acting = ReturnType<typeof signed> & ReturnType<typeof actionVerbs> & { params: { id: AgentId }; body: unknown };

export const operatorConsoleDoor = new Elysia({ name: "operator-console-door" }).decorate({ read }).macro({
  operatorPage: {
    async resolve({ request }) {
      const session = await signedIn(request);
      return session ? signed(session) : answerNow(signInPage(request));
    },
  },
  operatorForm: { resolve: (context) => checkedForm(context as unknown as Context) },
  operatorAction: (action: AuditAction) => ({
    async resolve(context) {
      const checked = await checkedForm(context as unknown as Context);
      if (!("session" in checked)) return checked;
      return { ...checked, ...actionVerbs(action, checked.session, context as unknown as Context) };
    },
  }),
});

