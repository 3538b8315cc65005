// The console's Notifications page (notifications.ts): the owner account's webhook (set, remove, rotate
// its secret after a confirmation, send a test) and its channels per kind of notice, through the door
// (door.ts) and the services of src/owner-webhooks. A session without an owner account (signed in with
// an agent's owner key) sees where notifications go, and every form of the page refuses it (403).
import { Elysia } from "elysia";
import { findAgent } from "../agents/service";
import { read, write } from "../db";
import { ApiError } from "../errors";
import { removeOwnerWebhook, rotateOwnerWebhookSecret, setOwnerWebhook } from "../owner-webhooks/settings";
import type { Session } from "../owners/sessions";
import { action, field, Form, refused, render, signedIn, type Fields } from "./door";
import { noOwnerAccount, notificationsPage, saveChoices, sendTest, type NotificationsOutcome } from "./notifications";
import { confirmRotation } from "./pages";
import { writerFor } from "./views";

const PAGE = "/console/notifications";
type OwnerSession = Session & { ownerId: string };

const show = async (session: OwnerSession, request: Request, outcome?: NotificationsOutcome, status = 200) =>
  render(session, "Notifications", PAGE, await notificationsPage(session.ownerId, session.csrfToken, writerFor(request), outcome), status);

/** A form of the page: an owner account's, its outcome (or a service's refusal, at its status) shown on the page. */
const ownerAction = (act: (session: OwnerSession, request: Request, body: Fields) => Promise<NotificationsOutcome>) =>
  action(async (session, request, body) => {
    if (session.ownerId === null) return refused("Notifications belong to an owner account: sign in with your e-mail address to choose them.");
    const owner = { ...session, ownerId: session.ownerId };
    try {
      return await show(owner, request, await act(owner, request, (body ?? {}) as Fields));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return show(owner, request, { ok: false, text: `Not done: ${error.message}` }, error.status);
    }
  });

export const notificationRoutes = new Elysia({ name: "console-notifications" })
  .get(
    "/notifications",
    signedIn(async (session, request) =>
      session.ownerId === null ? render(session, "Notifications", PAGE, noOwnerAccount(session.csrfToken)) : show({ ...session, ownerId: session.ownerId }, request),
    ),
    { detail: { hide: true } },
  )
  .post(
    "/notifications/webhook",
    ownerAction(async (session, _request, body) => {
      const { secret } = await setOwnerWebhook(session.ownerId, field(body, "url")?.trim() ?? "", field(body, "format") ?? "");
      return secret ? { ok: true, text: "Saved: notices now go to your webhook too.", secret } : { ok: true, text: "Saved. The signing secret is the same as before." };
    }),
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/webhook/remove",
    ownerAction(async (session) => {
      await write(() => removeOwnerWebhook(session.ownerId));
      return { ok: true, text: "The webhook was removed: notices go by e-mail only, and what was waiting to be sent to it is not." };
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/notifications/rotate",
    signedIn(async (session) =>
      session.ownerId === null ? render(session, "Notifications", PAGE, noOwnerAccount(session.csrfToken)) : render(session, "Rotate the signing secret", PAGE, confirmRotation("owner-secret", session.csrfToken)),
    ),
    { detail: { hide: true } },
  )
  .post(
    "/notifications/rotate",
    ownerAction(async (session) => ({ ok: true, text: "A new signing secret is in force. The old one no longer verifies.", secret: await write(() => rotateOwnerWebhookSecret(session.ownerId)) })),
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/test",
    ownerAction(async (session, _request, body) => {
      const agent = (await read(findAgent(session.agentId)))!;
      return sendTest(session.ownerId, agent, field(body, "kind"));
    }),
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/notifications/channels",
    ownerAction(async (session, _request, body) => {
      await saveChoices(session.ownerId, body);
      return { ok: true, text: "Saved: from the next notice on, you are told as chosen above." };
    }),
    { body: Form, detail: { hide: true } },
  );
