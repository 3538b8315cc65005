// The console's Webhooks page: where the agent's events go and the latest deliveries; send a failed one
// again, rotate the signing secret after a confirmation.
import { Elysia } from "elysia";
import { resendDelivery, rotateWebhookSecret } from "../webhooks/service";
import { consoleDoor, Form, Id, redirect } from "./door";
import { confirmRotation, webhooksPage } from "./pages";

const PAGE = "/console/webhooks";
const WEBHOOKS = { title: "Webhooks", path: PAGE };

export const webhookRoutes = new Elysia({ name: "console-webhooks" })
  .use(consoleDoor)
  .get("/webhooks", async ({ session, render, w }) => render("Webhooks", PAGE, await webhooksPage(session.agentId, session.csrfToken, w)), { page: true, detail: { hide: true } })
  .get("/webhooks/rotate", ({ session, render }) => render("Rotate the signing secret", PAGE, confirmRotation("secret", session.csrfToken)), { page: true, detail: { hide: true } })
  .post(
    "/webhooks/rotate",
    async ({ session, render, write, w }) => {
      const rotated = await write(() => rotateWebhookSecret(session.agentId));
      return render("Webhooks", PAGE, await webhooksPage(session.agentId, session.csrfToken, w, rotated.secret));
    },
    { form: true, section: WEBHOOKS, body: Form, detail: { hide: true } },
  )
  .post(
    "/webhooks/:id/resend",
    async ({ session, params }) => {
      await resendDelivery(session.agentId, params.id);
      return redirect(PAGE);
    },
    { form: true, section: WEBHOOKS, params: Id, body: Form, detail: { hide: true } },
  );
