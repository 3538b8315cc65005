// The console's Policy page (policy.ts): the spending policy, shown as a form and saved from it; a
// refused form comes back as it was sent, 400.
import { Elysia } from "elysia";
import { consoleDoor, Form, type Fields } from "./door";
import { policyPage, savePolicy } from "./policy";

const PAGE = "/console/policy";

export const policyRoutes = new Elysia({ name: "console-policy" })
  .use(consoleDoor)
  .get("/policy", async ({ session, render, w }) => render("Spending policy", PAGE, await policyPage(session.agentId, session.csrfToken, w)), { page: true, detail: { hide: true } })
  .post(
    "/policy",
    async ({ session, render, body, w }) => {
      const outcome = await savePolicy(session.agentId, (body ?? {}) as Fields);
      return render("Spending policy", PAGE, await policyPage(session.agentId, session.csrfToken, w, outcome), outcome.ok ? 200 : 400);
    },
    { form: true, body: Form, detail: { hide: true } },
  );
