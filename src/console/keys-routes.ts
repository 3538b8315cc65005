// The console's Keys page (/console/security): every restricted key, paged, with the count; make one,
// revoke one or all of them; rotate the agent's API key or the owner key (each ends the restricted keys
// the old key made unless the owner keeps them).
import { Elysia, t } from "elysia";
import { ApiError } from "../errors";
import { revokeAllKeys } from "../keys/service";
import { rotateOwnerKey } from "../owners/service";
import { cookie, SESSION_COOKIE, sessionOf } from "../owners/sessions";
import { rotateAgentKey } from "../profile/rotation";
import { consoleDoor, field, Form, Id, redirect, signInPage, type Fields } from "./door";
import { confirmRevoke, confirmRevokeAll, createKeyFromForm, keyOf, keysPage, revokeFromConsole } from "./keys";
import { confirmRotation } from "./pages";
import { bare, html, page } from "./views";

const PAGE = "/console/security";
const KEYS = { title: "Keys", path: PAGE };
const PageQuery = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
const pageNumber = (asked: string | undefined) => Math.max(1, Math.min(100_000, Number(asked ?? 1) || 1));
/** The checkbox of a rotation's confirmation: keep what the old key made (default: it ends with it). */
const keeps = (body: unknown) => field(body, "keepRestrictedKeys") === "on";
const ended = (revokedKeys: number) =>
  revokedKeys === 0 ? "No restricted key ended with it." : `${revokedKeys} restricted ${revokedKeys === 1 ? "key" : "keys"} it made ended with it.`;

export const keyRoutes = new Elysia({ name: "console-keys" })
  .use(consoleDoor)
  // The menu says "Keys": the address a person would guess leads to the page.
  .get("/keys", () => redirect(PAGE), { detail: { hide: true } })
  .get("/security", async ({ session, render, query, w }) => render("Keys", PAGE, await keysPage(session.agentId, session.csrfToken, w, pageNumber(query.page))), {
    page: true,
    query: PageQuery,
    detail: { hide: true },
  })
  .post(
    "/security/keys",
    async ({ session, render, body, w }) => {
      const outcome = await createKeyFromForm(session.agentId, (body ?? {}) as Fields);
      const shown = await keysPage(session.agentId, session.csrfToken, w, 1, outcome);
      return render(outcome.ok ? "New restricted key" : "Keys", PAGE, shown, outcome.ok ? 200 : 400);
    },
    { form: true, body: Form, detail: { hide: true } },
  )
  .get(
    "/security/keys/:id/revoke",
    async ({ session, render, params }) => render("Revoke a key", PAGE, confirmRevoke(await keyOf(session.agentId, params.id), session.csrfToken)),
    { page: true, section: KEYS, params: Id, detail: { hide: true } },
  )
  .post(
    "/security/keys/:id/revoke",
    async ({ session, params }) => {
      await revokeFromConsole(session.agentId, params.id);
      return redirect(PAGE);
    },
    { form: true, section: KEYS, params: Id, body: Form, detail: { hide: true } },
  )
  .get("/security/revoke-all", async ({ session, render }) => render("Revoke every restricted key", PAGE, await confirmRevokeAll(session.agentId, session.csrfToken)), {
    page: true,
    detail: { hide: true },
  })
  .post(
    "/security/revoke-all",
    async ({ session, render, write }) => {
      const revoked = await write(() => revokeAllKeys(session.agentId));
      const shown = html`<section><p class="ok" role="status">${revoked === 1 ? "1 restricted key was" : `${revoked} restricted keys were`} revoked: none works any more.</p><p><a href="/console/security">Back to the keys</a></p></section>`;
      return render("Keys revoked", PAGE, shown);
    },
    { form: true, body: Form, detail: { hide: true } },
  )
  .get("/security/rotate", ({ session, render }) => render("Rotate the API key", PAGE, confirmRotation("key", session.csrfToken)), { page: true, detail: { hide: true } })
  .post(
    "/rotate",
    async ({ session, render, write, body }) => {
      const { apiKey, revokedKeys } = await write(() => rotateAgentKey(session.agentId, undefined, keeps(body)));
      const shown = html`<section><p class="ok">The API key was rotated. Store it now: it is not shown again.</p><p class="key" id="new-api-key">${apiKey}</p><p id="revoked-keys">${ended(revokedKeys)}</p></section>`;
      return render("New API key", PAGE, shown);
    },
    { form: true, body: Form, detail: { hide: true } },
  )
  .get("/security/owner-key", ({ session, render }) => render("Replace the owner key", PAGE, confirmRotation("owner-key", session.csrfToken)), { page: true, detail: { hide: true } })
  .post(
    "/security/owner-key",
    async ({ session, write, request, body }) => {
      // The session is checked again once the agent's row is locked: of two rotations at once, one wins.
      const stillSignedIn = function* () {
        return (yield* sessionOf(request))?.agentId === session.agentId;
      };
      const rotated = await write(() => rotateOwnerKey(session.agentId, stillSignedIn, keeps(body))).catch((error) => {
        if (error instanceof ApiError && error.code === "UNAUTHORIZED") return null;
        throw error;
      });
      if (rotated === null) return signInPage(request, "Your session ended: the owner key was replaced meanwhile.", 401);
      const shown = html`<section><p class="ok">The owner key was replaced. Store it now: it is not shown again.</p><p class="key" id="new-owner-key">${rotated.ownerKey}</p>
<p>The old key no longer works, and every console session signed in with it has ended, this one too. <span id="revoked-keys">${ended(rotated.revokedKeys)}</span></p>
<div class="actions"><a class="button" href="/console">Sign in with the new key</a></div></section>`;
      return page(bare("New owner key", shown), 200, { "set-cookie": cookie(SESSION_COOKIE, "", request, 0) });
    },
    { form: true, body: Form, detail: { hide: true } },
  );
