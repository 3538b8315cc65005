// The console's Keys page (/console/security): every restricted key, paged, with the count; make one,
// revoke one or all of them; rotate the agent's API key or the owner key (each ends the restricted keys
// the old key made unless the owner keeps them).
import { Elysia, t } from "elysia";
import { write } from "../db";
import { ApiError } from "../errors";
import { revokeAllKeys } from "../keys/service";
import { rotateOwnerKey } from "../owners/service";
import { cookie, SESSION_COOKIE, sessionOf } from "../owners/sessions";
import { rotateAgentKey } from "../profile/rotation";
import { action, field, Form, Id, redirect, refusedAs, render, signedIn, signInPage, type Fields } from "./door";
import { confirmRevoke, confirmRevokeAll, createKeyFromForm, keyOf, keysPage, revokeFromConsole } from "./keys";
import { confirmRotation } from "./pages";
import { bare, html, page, writerFor } from "./views";

const PageQuery = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
const pageNumber = (asked: string | undefined) => Math.max(1, Math.min(100_000, Number(asked ?? 1) || 1));
/** The checkbox of a rotation's confirmation: keep what the old key made (default: it ends with it). */
const keeps = (body: unknown) => field(body, "keepRestrictedKeys") === "on";
const ended = (revokedKeys: number) =>
  revokedKeys === 0 ? "No restricted key ended with it." : `${revokedKeys} restricted ${revokedKeys === 1 ? "key" : "keys"} it made ended with it.`;

export const keyRoutes = new Elysia({ name: "console-keys" })
  // The menu says "Keys": the address a person would guess leads to the page.
  .get("/keys", () => redirect("/console/security"), { detail: { hide: true } })
  .get(
    "/security",
    ({ request, query }) =>
      signedIn(async (session) => render(session, "Keys", "/console/security", await keysPage(session.agentId, session.csrfToken, writerFor(request), pageNumber(query.page))))({ request }),
    { query: PageQuery, detail: { hide: true } },
  )
  .post(
    "/security/keys",
    action(async (session, request, body) => {
      const outcome = await createKeyFromForm(session.agentId, (body ?? {}) as Fields);
      const shown = await keysPage(session.agentId, session.csrfToken, writerFor(request), 1, outcome);
      return render(session, outcome.ok ? "New restricted key" : "Keys", "/console/security", shown, outcome.ok ? 200 : 400);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/security/keys/:id/revoke",
    ({ request, params }) =>
      signedIn((session) =>
        refusedAs(session, "Keys", "/console/security", async () =>
          render(session, "Revoke a key", "/console/security", confirmRevoke(await keyOf(session.agentId, params.id), session.csrfToken)),
        ),
      )({ request }),
    { params: Id, detail: { hide: true } },
  )
  .post(
    "/security/keys/:id/revoke",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, "Keys", "/console/security", async () => {
          await revokeFromConsole(session.agentId, params.id);
          return redirect("/console/security");
        }),
      )({ request, body }),
    { params: Id, body: Form, detail: { hide: true } },
  )
  .get("/security/revoke-all", signedIn(async (session) => render(session, "Revoke every restricted key", "/console/security", await confirmRevokeAll(session.agentId, session.csrfToken))), {
    detail: { hide: true },
  })
  .post(
    "/security/revoke-all",
    action(async (session) => {
      const revoked = await write(() => revokeAllKeys(session.agentId));
      const shown = html`<section><p class="ok" role="status">${revoked === 1 ? "1 restricted key was" : `${revoked} restricted keys were`} revoked: none works any more.</p><p><a href="/console/security">Back to the keys</a></p></section>`;
      return render(session, "Keys revoked", "/console/security", shown);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get("/security/rotate", signedIn(async (session) => render(session, "Rotate the API key", "/console/security", confirmRotation("key", session.csrfToken))), {
    detail: { hide: true },
  })
  .post(
    "/rotate",
    action(async (session, _request, body) => {
      const { apiKey, revokedKeys } = await write(() => rotateAgentKey(session.agentId, undefined, keeps(body)));
      const shown = html`<section><p class="ok">The API key was rotated. Store it now: it is not shown again.</p><p class="key" id="new-api-key">${apiKey}</p><p id="revoked-keys">${ended(revokedKeys)}</p></section>`;
      return render(session, "New API key", "/console/security", shown);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/security/owner-key",
    signedIn(async (session) => render(session, "Replace the owner key", "/console/security", confirmRotation("owner-key", session.csrfToken))),
    { detail: { hide: true } },
  )
  .post(
    "/security/owner-key",
    action(async (session, request, body) => {
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
    }),
    { body: Form, detail: { hide: true } },
  );
