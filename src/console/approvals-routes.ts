// The console's Approvals: held outflows and negotiations, each approved or declined after a
// confirmation that repeats the amount in words; one opened from a mail shows both decisions at once.
import { Elysia, t } from "elysia";
import { expireApprovalIfDue } from "../owners/decisions";
import { executeApproved } from "../owners/executors";
import { approvalAgentOf, approve, decline, getApproval, type ApprovalView } from "../owners/service";
import { consoleDoor, field, Form, Id, type Signed, type Verbs } from "./door";
import { approvalsPage, confirmPage, decidedPage, decisionPage } from "./pages";
import { html } from "./views";

const PAGE = "/console/approvals";
const Decision = t.Object({ id: t.String({ format: "uuid" }), action: t.Union([t.Literal("approve"), t.Literal("decline")]) });

/** The approval `id` while it waits, on a page (`title`, `shown`); or that there is none such (404) or it was decided (409). */
async function whileWaiting({ session, render, read, w }: Signed & Pick<Verbs, "read">, id: string, title: string, shown: (item: ApprovalView) => string) {
  await expireApprovalIfDue(id);
  const item = await read(getApproval(session.agentId, id)).catch(() => null);
  if (!item) return render("Not found", PAGE, html`<section><p class="error">No such approval.</p></section>`, 404);
  if (item.status !== "PENDING") return render("Already decided", PAGE, decidedPage(item, w), 409);
  return render(title, PAGE, shown(item));
}

export const approvalRoutes = new Elysia({ name: "console-approvals" })
  .use(consoleDoor)
  .get("/approvals", async ({ session, render, w }) => render("Approvals", PAGE, await approvalsPage(session.agentId, w)), { page: true, detail: { hide: true } })
  .get(
    "/approvals/:id",
    // Opened from a mail: an owner signed in with its account sees the agent this approval is of.
    ({ session, render, read, params, w }) => whileWaiting({ session, render, read, w }, params.id, "Waiting for you", (item) => decisionPage(item, session.csrfToken, w)),
    { page: { shows: approvalAgentOf }, params: Id, detail: { hide: true } },
  )
  .get(
    "/approvals/:id/:action",
    ({ session, render, read, params, w }) => {
      const title = params.action === "approve" ? "Confirm the approval" : "Confirm the decline";
      return whileWaiting({ session, render, read, w }, params.id, title, (item) => confirmPage(item, params.action, session.csrfToken, w));
    },
    { page: true, params: Decision, detail: { hide: true } },
  )
  .post(
    "/approvals/:id/:action",
    async ({ session, render, params, body, w }) => {
      const item =
        params.action === "approve"
          ? await approve(session.agentId, params.id, field(body, "termsHash"), executeApproved)
          : await decline(session.agentId, params.id, field(body, "termsHash"));
      return render(params.action === "approve" ? "Approved" : "Declined", PAGE, decidedPage(item, w));
    },
    { form: true, section: { title: "Not done", path: PAGE }, params: Decision, body: Form, detail: { hide: true } },
  );
