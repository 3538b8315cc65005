// The console's Notifications page (notifications.ts): the owner account's webhook (set, remove, rotate
// its secret after a confirmation, send a test) and its channels per kind of notice, through the door
// (door.ts) and the services of src/owner-webhooks. A session without an owner account (signed in with
// an agent's owner key) sees where notifications go, and every form of the page refuses it (403).
import { Elysia } from "elysia";
import { findAgent } from "../agents/service";
import type { ApiError } from "../errors";
import { removeOwnerWebhook, rotateOwnerWebhookSecret, setOwnerWebhook } from "../owner-webhooks/settings";
import type { Session } from "../owners/sessions";
import { answerNow, consoleDoor, field, Form, refused, type Signed } from "./door";
import { noOwnerAccount, notificationsPage, saveChoices, sendTest, type NotificationsOutcome } from "./notifications";
import { confirmRotation } from "./pages";

const PAGE = "/console/notifications";
type OwnerSession = Session & { ownerId: string };

/** The page of an owner account's session, with what its last form did (`outcome`). */
const shown = async ({ render, w }: Pick<Signed, "render" | "w">, owner: OwnerSession, outcome?: NotificationsOutcome, status = 200) =>
  render("Notifications", PAGE, await notificationsPage(owner.ownerId, owner.csrfToken, w, outcome), status);

const notificationsDoor = new Elysia({ name: "console-notifications-door" }).use(consoleDoor).macro({
  /**
   * A form of the page (`form`, first): an owner account's (`owner`), else refused (403); `show(outcome)`
   * answers the page with what it did, and a service's refusal (ApiError) is shown there at its status.
   */
  ownerForm: {
    form: true,
    resolve(context) {
      // Elysia types a macro's resolve without what another resolved: `form` resolved the signed-in context.
      const signed = context as unknown as Signed;
      const { ownerId } = signed.session;
      if (ownerId === null) return answerNow(refused("Notifications belong to an owner account: sign in with your e-mail address to choose them."));
      const owner = { ...signed.session, ownerId };
      return {
        owner,
        show: (outcome: NotificationsOutcome) => shown(signed, owner, outcome),
        showRefusal: (error: ApiError) => shown(signed, owner, { ok: false, text: `Not done: ${error.message}` }, error.status),
      };
    },
  },
});

export const notificationRoutes = new Elysia({ name: "console-notifications" })
  .use(notificationsDoor)
  .get(
    "/notifications",
    ({ session, render, w }) =>
      session.ownerId === null ? render("Notifications", PAGE, noOwnerAccount(session.csrfToken)) : shown({ render, w }, { ...session, ownerId: session.ownerId }),
    { page: true, detail: { hide: true } },
  )
  .post(
    "/notifications/webhook",
    async ({ owner, body, show }) => {
      const { secret } = await setOwnerWebhook(owner.ownerId, field(body, "url")?.trim() ?? "", field(body, "format") ?? "");
      return show(secret ? { ok: true, text: "Saved: notices now go to your webhook too.", secret } : { ok: true, text: "Saved. The signing secret is the same as before." });
    },
    { ownerForm: true, body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/webhook/remove",
    async ({ owner, write, show }) => {
      await write(() => removeOwnerWebhook(owner.ownerId));
      return show({ ok: true, text: "The webhook was removed: notices go by e-mail only, and what was waiting to be sent to it is not." });
    },
    { ownerForm: true, body: Form, detail: { hide: true } },
  )
  .get(
    "/notifications/rotate",
    ({ session, render }) =>
      session.ownerId === null
        ? render("Notifications", PAGE, noOwnerAccount(session.csrfToken))
        : render("Rotate the signing secret", PAGE, confirmRotation("owner-secret", session.csrfToken)),
    { page: true, detail: { hide: true } },
  )
  .post(
    "/notifications/rotate",
    async ({ owner, write, show }) => show({ ok: true, text: "A new signing secret is in force. The old one no longer verifies.", secret: await write(() => rotateOwnerWebhookSecret(owner.ownerId)) }),
    { ownerForm: true, body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/test",
    async ({ owner, read, body, show }) => {
      const agent = (await read(findAgent(owner.agentId)))!;
      return show(await sendTest(owner.ownerId, agent, field(body, "kind")));
    },
    { ownerForm: true, body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/channels",
    async ({ owner, body, show }) => {
      await saveChoices(owner.ownerId, body ?? {});
      return show({ ok: true, text: "Saved: from the next notice on, you are told as chosen above." });
    },
    { ownerForm: true, body: Form, detail: { hide: true } },
  );
