// /console: the human owner's side of an agent. Signs in with the owner key (po_…). Overview (balances,
// history), Approvals (held outflows and negotiations: approve or decline, each after a confirmation
// that repeats the amount in words), Activity, Policy (the spending policy, edited), Webhooks
// (deliveries, send a failed one again, rotate the signing secret), Keys (keys-routes.ts), and the brakes
// (brakes-routes.ts: freeze the agent, stop what it committed to from Activity). Every action goes
// through the same services as the API; every page and form through the door (door.ts).
import { Elysia, t } from "elysia";
import { findAgentByKeyHash } from "../agents/service";
import { read, write } from "../db";
import { sha256Hex } from "../ids";
import { executeApproved } from "../owners/executors";
import { approve, decline, getApproval } from "../owners/service";
import { resendDelivery, rotateWebhookSecret } from "../webhooks/service";
import { historyCsv, type CsvRequest } from "./csv";
import { action, field, Form, Id, redirect, refused, refusedAs, render, reservedField, reservedMessage, signedIn, signInPage, type Fields } from "./door";
import { brakeRoutes } from "./brakes-routes";
import { keyRoutes } from "./keys-routes";
import { activity, approvalsPage, confirmPage, confirmRotation, decidedPage, overview, webhooksPage } from "./pages";
import { policyPage, savePolicy } from "./policy";
import { closeSession, cookie, LOGIN_CSRF_COOKIE, openSession, readCookie, sameToken, SESSION_COOKIE, sessionOf, type Session } from "../owners/sessions";
import { html, writerFor } from "./views";

/**
 * Where sign-in may send the browser back to (`next`): a console page of this service, spelled as a
 * URL's path and query are (printable ASCII: the consent page's own URL, percent-encoded). A control
 * character, a line separator or anything else is refused before anything is written: it could not
 * be sent in the Location header.
 */
const CONSOLE_PATH = /^\/console\/[A-Za-z0-9][\x21-\x7e]*$/;

const Decision = t.Object({ id: t.String({ format: "uuid" }), action: t.Union([t.Literal("approve"), t.Literal("decline")]) });

const CsvQuery = t.Object({ from: t.Optional(t.String({ maxLength: 40 })), to: t.Optional(t.String({ maxLength: 40 })), currency: t.Optional(t.String({ maxLength: 40 })) });

/** The history as a CSV download, or (a bad range, too many rows) the reason on the Overview's frame, 400. */
const csvAnswer = (session: Session, request: Request, asked: CsvRequest) =>
  refusedAs(session, request, "Export", "/console", async () => {
    const { text, filename } = await historyCsv(session.agentId, asked);
    return new Response(text, {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store", "x-content-type-options": "nosniff" },
    });
  });

export const consoleRoutes = new Elysia({ prefix: "/console", name: "console" })
  .get(
    "",
    ({ request, query }) =>
      signedIn(async (session) => {
        const pageNumber = Math.max(1, Math.min(100_000, Number(query.page ?? 1) || 1));
        return render(session, request, "Overview", "/console", await overview(session.agentId, pageNumber, session.csrfToken, writerFor(request)));
      })({ request }),
    { query: t.Object({ page: t.Optional(t.String({ maxLength: 10 })) }), detail: { hide: true } },
  )
  .post(
    "/login",
    async ({ request, body }) => {
      if (!sameToken(readCookie(request, LOGIN_CSRF_COOKIE), field(body, "csrf"))) return refused("The form expired or did not come from this console. Reload and try again.");
      const reserved = reservedField(body);
      if (reserved !== null) return signInPage(request, reservedMessage(reserved), 400);
      const next = field(body, "next") || undefined;
      if (next !== undefined && !CONSOLE_PATH.test(next)) return refused("The page to go back to after signing in is not a console page of this service. Sign in from /console.", 400);
      const ownerKey = field(body, "ownerKey") ?? "";
      if (ownerKey.startsWith("pp_")) return signInPage(request, "This is an agent key (pp_…); sign in with the owner key (po_…) shown at registration.", 401, next);
      const agent = ownerKey.startsWith("po_") ? await read(findAgentByKeyHash("ownerKeyHash", sha256Hex(ownerKey))) : null;
      if (!agent) return signInPage(request, "That owner key is not valid: it is not the po_… key of any agent (it may have been replaced).", 401, next);
      const { token, maxAgeSeconds } = await write(() => openSession(agent.id));
      return redirect(next ?? "/console", { "set-cookie": cookie(SESSION_COOKIE, token, request, maxAgeSeconds) });
    },
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/logout",
    async ({ request, body }) => {
      const session = await read(sessionOf(request));
      if (session && !sameToken(session.csrfToken, field(body, "csrf"))) return refused("Missing or wrong CSRF token.");
      const reserved = reservedField(body);
      if (reserved !== null) return refused(reservedMessage(reserved), 400);
      await write(() => closeSession(request));
      return redirect("/console", { "set-cookie": cookie(SESSION_COOKIE, "", request, 0) });
    },
    { body: Form, detail: { hide: true } },
  )
  .get("/approvals", signedIn(async (session, request) => render(session, request, "Approvals", "/console/approvals", await approvalsPage(session.agentId, writerFor(request)))), {
    detail: { hide: true },
  })
  .get(
    "/approvals/:id/:action",
    ({ request, params }) =>
      signedIn(async (session) => {
        const item = await getApproval(session.agentId, params.id).catch(() => null);
        if (!item) return render(session, request, "Not found", "/console/approvals", html`<section><p class="error">No such approval.</p></section>`, 404);
        if (item.status !== "PENDING") return render(session, request, "Already decided", "/console/approvals", decidedPage(item, writerFor(request)), 409);
        const title = params.action === "approve" ? "Confirm the approval" : "Confirm the decline";
        return render(session, request, title, "/console/approvals", confirmPage(item, params.action, session.csrfToken, writerFor(request)));
      })({ request }),
    { params: Decision, detail: { hide: true } },
  )
  .post(
    "/approvals/:id/:action",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, request, "Not done", "/console/approvals", async () => {
          const item =
            params.action === "approve"
              ? await approve(session.agentId, params.id, field(body, "termsHash"), executeApproved)
              : await decline(session.agentId, params.id, field(body, "termsHash"));
          return render(session, request, params.action === "approve" ? "Approved" : "Declined", "/console/approvals", decidedPage(item, writerFor(request)));
        }),
      )({ request, body }),
    { params: Decision, body: Form, detail: { hide: true } },
  )
  .get("/activity", signedIn(async (session, request) => render(session, request, "Activity", "/console/activity", await activity(session.agentId, writerFor(request)))), {
    detail: { hide: true },
  })
  .get("/policy", signedIn(async (session, request) => render(session, request, "Spending policy", "/console/policy", await policyPage(session.agentId, session.csrfToken, writerFor(request)))), {
    detail: { hide: true },
  })
  .post(
    "/policy",
    action(async (session, request, body) => {
      const outcome = await savePolicy(session.agentId, (body ?? {}) as Fields);
      const shown = await policyPage(session.agentId, session.csrfToken, writerFor(request), outcome);
      return render(session, request, "Spending policy", "/console/policy", shown, outcome.ok ? 200 : 400);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/history.csv",
    ({ request, query }) => signedIn((session) => csvAnswer(session, request, query))({ request }),
    { query: CsvQuery, detail: { hide: true } },
  )
  .post(
    "/history.csv",
    ({ request, body }) => action((session) => csvAnswer(session, request, { from: field(body, "from"), to: field(body, "to"), currency: field(body, "currency") }))({ request, body }),
    { body: Form, detail: { hide: true } },
  )
  .get("/webhooks", signedIn(async (session, request) => render(session, request, "Webhooks", "/console/webhooks", await webhooksPage(session.agentId, session.csrfToken, writerFor(request)))), {
    detail: { hide: true },
  })
  .get("/webhooks/rotate", signedIn(async (session, request) => render(session, request, "Rotate the signing secret", "/console/webhooks", confirmRotation("secret", session.csrfToken))), {
    detail: { hide: true },
  })
  .post(
    "/webhooks/rotate",
    action((session, request) =>
      refusedAs(session, request, "Webhooks", "/console/webhooks", async () => {
        const rotated = await write(() => rotateWebhookSecret(session.agentId));
        return render(session, request, "Webhooks", "/console/webhooks", await webhooksPage(session.agentId, session.csrfToken, writerFor(request), rotated.secret));
      }),
    ),
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/webhooks/:id/resend",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, request, "Webhooks", "/console/webhooks", async () => {
          await resendDelivery(session.agentId, params.id);
          return redirect("/console/webhooks");
        }),
      )({ request, body }),
    { params: Id, body: Form, detail: { hide: true } },
  )
  .use(keyRoutes)
  .use(brakeRoutes);
