// /console: the human owner's side of its agents (signing in and claiming: sign-in-routes.ts). Overview
// (balances, history), Approvals (held outflows and negotiations: approve or decline, each after a
// confirmation that repeats the amount in words), Activity, Policy (the spending policy, edited), Webhooks
// (deliveries, send a failed one again, rotate the signing secret), Keys (keys-routes.ts), the brakes
// (brakes-routes.ts: freeze the agent, stop what it committed to from Activity) and Notifications
// (notifications-routes.ts: the owner account's webhook and channels). Every action goes
// through the same services as the API; every page and form through the door (door.ts).
import { Elysia, t } from "elysia";
import { read, write } from "../db";
import { expireApprovalIfDue } from "../owners/decisions";
import { executeApproved } from "../owners/executors";
import { approvalAgentOf, approve, decline, getApproval } from "../owners/service";
import { resendDelivery, rotateWebhookSecret } from "../webhooks/service";
import { historyCsv, type CsvRequest } from "./csv";
import { action, field, Form, Id, redirect, refusedAs, render, sessionShowing, signedIn, type Fields } from "./door";
import { brakeRoutes } from "./brakes-routes";
import { keyRoutes } from "./keys-routes";
import { notificationRoutes } from "./notifications-routes";
import { signInRoutes } from "./sign-in-routes";
import { activity, approvalsPage, confirmPage, confirmRotation, decidedPage, decisionPage, overview, webhooksPage } from "./pages";
import { policyPage, savePolicy } from "./policy";
import type { Session } from "../owners/sessions";
import { html, writerFor } from "./views";

const Decision = t.Object({ id: t.String({ format: "uuid" }), action: t.Union([t.Literal("approve"), t.Literal("decline")]) });

const CsvQuery = t.Object({ from: t.Optional(t.String({ maxLength: 40 })), to: t.Optional(t.String({ maxLength: 40 })), currency: t.Optional(t.String({ maxLength: 40 })) });

/** The history as a CSV download, or (a bad range, too many rows) the reason on the Overview's frame, 400. */
const csvAnswer = (session: Session, asked: CsvRequest) =>
  refusedAs(session, "Export", "/console", async () => {
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
        return render(session, "Overview", "/console", await overview(session.agentId, pageNumber, session.csrfToken, writerFor(request)));
      })({ request }),
    { query: t.Object({ page: t.Optional(t.String({ maxLength: 10 })) }), detail: { hide: true } },
  )
  .get("/approvals", signedIn(async (session, request) => render(session, "Approvals", "/console/approvals", await approvalsPage(session.agentId, writerFor(request)))), {
    detail: { hide: true },
  })
  .get(
    "/approvals/:id",
    ({ request, params }) =>
      signedIn(async (signed) => {
        // Opened from a mail: an owner signed in with its account sees the agent this approval is of.
        const session = await sessionShowing(signed, request, await read(approvalAgentOf(params.id)));
        await expireApprovalIfDue(params.id);
        const item = await read(getApproval(session.agentId, params.id)).catch(() => null);
        if (!item) return render(session, "Not found", "/console/approvals", html`<section><p class="error">No such approval.</p></section>`, 404);
        if (item.status !== "PENDING") return render(session, "Already decided", "/console/approvals", decidedPage(item, writerFor(request)), 409);
        return render(session, "Waiting for you", "/console/approvals", decisionPage(item, session.csrfToken, writerFor(request)));
      })({ request }),
    { params: Id, detail: { hide: true } },
  )
  .get(
    "/approvals/:id/:action",
    ({ request, params }) =>
      signedIn(async (session) => {
        await expireApprovalIfDue(params.id);
        const item = await read(getApproval(session.agentId, params.id)).catch(() => null);
        if (!item) return render(session, "Not found", "/console/approvals", html`<section><p class="error">No such approval.</p></section>`, 404);
        if (item.status !== "PENDING") return render(session, "Already decided", "/console/approvals", decidedPage(item, writerFor(request)), 409);
        const title = params.action === "approve" ? "Confirm the approval" : "Confirm the decline";
        return render(session, title, "/console/approvals", confirmPage(item, params.action, session.csrfToken, writerFor(request)));
      })({ request }),
    { params: Decision, detail: { hide: true } },
  )
  .post(
    "/approvals/:id/:action",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, "Not done", "/console/approvals", async () => {
          const item =
            params.action === "approve"
              ? await approve(session.agentId, params.id, field(body, "termsHash"), executeApproved)
              : await decline(session.agentId, params.id, field(body, "termsHash"));
          return render(session, params.action === "approve" ? "Approved" : "Declined", "/console/approvals", decidedPage(item, writerFor(request)));
        }),
      )({ request, body }),
    { params: Decision, body: Form, detail: { hide: true } },
  )
  .get("/activity", signedIn(async (session, request) => render(session, "Activity", "/console/activity", await activity(session.agentId, writerFor(request)))), {
    detail: { hide: true },
  })
  .get("/policy", signedIn(async (session, request) => render(session, "Spending policy", "/console/policy", await policyPage(session.agentId, session.csrfToken, writerFor(request)))), {
    detail: { hide: true },
  })
  .post(
    "/policy",
    action(async (session, request, body) => {
      const outcome = await savePolicy(session.agentId, (body ?? {}) as Fields);
      const shown = await policyPage(session.agentId, session.csrfToken, writerFor(request), outcome);
      return render(session, "Spending policy", "/console/policy", shown, outcome.ok ? 200 : 400);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/history.csv",
    ({ request, query }) => signedIn((session) => csvAnswer(session, query))({ request }),
    { query: CsvQuery, detail: { hide: true } },
  )
  .post(
    "/history.csv",
    ({ request, body }) => action((session) => csvAnswer(session, { from: field(body, "from"), to: field(body, "to"), currency: field(body, "currency") }))({ request, body }),
    { body: Form, detail: { hide: true } },
  )
  .get("/webhooks", signedIn(async (session, request) => render(session, "Webhooks", "/console/webhooks", await webhooksPage(session.agentId, session.csrfToken, writerFor(request)))), {
    detail: { hide: true },
  })
  .get("/webhooks/rotate", signedIn(async (session) => render(session, "Rotate the signing secret", "/console/webhooks", confirmRotation("secret", session.csrfToken))), {
    detail: { hide: true },
  })
  .post(
    "/webhooks/rotate",
    action((session, request) =>
      refusedAs(session, "Webhooks", "/console/webhooks", async () => {
        const rotated = await write(() => rotateWebhookSecret(session.agentId));
        return render(session, "Webhooks", "/console/webhooks", await webhooksPage(session.agentId, session.csrfToken, writerFor(request), rotated.secret));
      }),
    ),
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/webhooks/:id/resend",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, "Webhooks", "/console/webhooks", async () => {
          await resendDelivery(session.agentId, params.id);
          return redirect("/console/webhooks");
        }),
      )({ request, body }),
    { params: Id, body: Form, detail: { hide: true } },
  )
  .use(keyRoutes)
  .use(signInRoutes)
  .use(brakeRoutes)
  .use(notificationRoutes);
