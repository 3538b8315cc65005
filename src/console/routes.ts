// /console: the human owner's side of an agent. Signs in with the owner key (po_…). Overview (balances,
// history), Approvals (held outflows and negotiations: approve or decline, each after a confirmation
// that repeats the amount in words), Activity, Policy (the spending policy, edited), Webhooks (deliveries,
// send a failed one again, rotate the signing secret), Keys (the restricted keys: make one, revoke one;
// rotate the agent's API key or the owner key). Every action goes through the same services as the API; every form carries the session's CSRF
// token. Form fields arrive in an object without a prototype and are read as its own properties; a
// field named (or dotted/bracketed through) __proto__, constructor or prototype is refused with 400.
import { Elysia, t } from "elysia";
import { findAgent, findAgentByKeyHash, rotateApiKey } from "../agents/service";
import { read, write } from "../db";
import { ApiError } from "../errors";
import { secret, sha256Hex } from "../ids";
import { isReservedKey, ownProperty, RESERVED_KEYS } from "../json";
import { executeApproved } from "../owners/executors";
import { approve, decline, getApproval, pendingCount, rotateOwnerKey } from "../owners/service";
import { resendDelivery, rotateWebhookSecret } from "../webhooks/service";
import { MOST_KNOWN } from "./counterparties";
import { historyCsv, type CsvRequest } from "./csv";
import { confirmRevoke, createKeyFromForm, keyOf, keysPage, revokeFromConsole } from "./keys";
import { activity, approvalsPage, confirmPage, confirmRotation, decidedPage, overview, webhooksPage } from "./pages";
import { policyPage, savePolicy } from "./policy";
import { closeSession, cookie, LOGIN_CSRF_COOKIE, openSession, readCookie, sameToken, SESSION_COOKIE, sessionOf, type Session } from "../owners/sessions";
import { bare, html, layout, page, raw, writerFor } from "./views";

/**
 * Form posts are read leniently, so a post without its CSRF token is refused (403), not a 400. Room for
 * the largest form, a new key's: its name, 12 scopes, 10 budgets, the expiry, the allowlist box and a
 * checkbox per known counterparty (MOST_KNOWN).
 */
export const Form = t.Optional(t.Record(t.String({ maxLength: 50 }), t.String({ maxLength: 40_000 }), { maxProperties: 30 + MOST_KNOWN }));
type Fields = Record<string, string>;
export const field = (body: unknown, name: string) => (body ? ownProperty(body as Fields, name) : undefined);
const reservedField = (body: unknown) => Object.keys(body ?? {}).find(isReservedKey) ?? null;
const reservedMessage = (name: string) => `The form field "${name}" is not accepted: no field of the console is named with ${[...RESERVED_KEYS].join(", ")}.`;
const redirect = (to: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location: to, ...headers } });
export const refused = (reason: string, status = 403) => page(bare("Refused", html`<p class="error">${reason}</p><p><a href="/console">Back</a></p>`), status);
const Id = t.Object({ id: t.String({ format: "uuid" }) });
const Decision = t.Object({ id: t.String({ format: "uuid" }), action: t.Union([t.Literal("approve"), t.Literal("decline")]) });

/**
 * Where sign-in may send the browser back to (`next`): a console page of this service, spelled as a
 * URL's path and query are (printable ASCII: the consent page's own URL, percent-encoded). A control
 * character, a line separator or anything else is refused before anything is written: it could not
 * be sent in the Location header.
 */
const CONSOLE_PATH = /^\/console\/[A-Za-z0-9][\x21-\x7e]*$/;

/** `next`: the console page to go back to once signed in (the OAuth consent page). */
export function signInPage(request: Request, error?: string, status = 200, next?: string) {
  const csrf = secret("");
  return page(
    bare(
      "Sign in",
      html`<section><p>Sign in with your agent's <strong>owner key</strong> (po_…), shown once when the agent registered.</p>
${error ? raw(html`<p class="error">${error}</p>`) : ""}
<form method="post" action="/console/login"><input type="hidden" name="csrf" value="${csrf}">${next ? raw(html`<input type="hidden" name="next" value="${next}">`) : ""}
<label for="ownerKey">Owner key</label><input id="ownerKey" name="ownerKey" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form></section>`,
    ),
    status,
    { "set-cookie": cookie(LOGIN_CSRF_COOKIE, csrf, request, 600) },
  );
}

/** The signed-in page: the agent's name and the count of what waits for the owner in the header. */
export async function render(session: Session, request: Request, title: string, current: string, body: string, status = 200) {
  const agent = (await read(findAgent(session.agentId)))!;
  const pending = await read(pendingCount(session.agentId));
  return page(layout({ title, agentName: agent.name, agentId: agent.id, pending, csrf: session.csrfToken, current }, body), status);
}

/** Runs an owner's action; if a service refuses it (ApiError), its message on the section's page, at its status. */
async function refusedAs(session: Session, request: Request, title: string, current: string, act: () => Promise<Response>) {
  try {
    return await act();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return render(session, request, title, current, html`<section><p class="error">${error.message}</p><p><a href="${current}">Back</a></p></section>`, error.status);
  }
}

type Handler = (session: Session, request: Request) => Promise<Response>;
/** A page behind sign-in. */
const signedIn = (handler: Handler) => async ({ request }: { request: Request }) => {
  const session = await read(sessionOf(request));
  return session ? handler(session, request) : signInPage(request);
};
/** A form post behind sign-in and its CSRF token. */
export const action = (handler: (session: Session, request: Request, body: unknown) => Promise<Response>) => async ({ request, body }: { request: Request; body: unknown }) => {
  const session = await read(sessionOf(request));
  if (!session) return signInPage(request, "Sign in first.", 401);
  if (!sameToken(session.csrfToken, field(body, "csrf"))) return refused("Missing or wrong CSRF token. Reload the page and try again.");
  const reserved = reservedField(body);
  if (reserved !== null) return refused(reservedMessage(reserved), 400);
  return handler(session, request, body);
};

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
  .get("/security", signedIn(async (session, request) => render(session, request, "Keys", "/console/security", await keysPage(session.agentId, session.csrfToken, writerFor(request)))), {
    detail: { hide: true },
  })
  .post(
    "/security/keys",
    action(async (session, request, body) => {
      const outcome = await createKeyFromForm(session.agentId, (body ?? {}) as Fields);
      const shown = await keysPage(session.agentId, session.csrfToken, writerFor(request), outcome);
      return render(session, request, outcome.ok ? "New restricted key" : "Keys", "/console/security", shown, outcome.ok ? 200 : 400);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/security/keys/:id/revoke",
    ({ request, params }) =>
      signedIn((session) =>
        refusedAs(session, request, "Keys", "/console/security", async () =>
          render(session, request, "Revoke a key", "/console/security", confirmRevoke(await keyOf(session.agentId, params.id), session.csrfToken)),
        ),
      )({ request }),
    { params: Id, detail: { hide: true } },
  )
  .post(
    "/security/keys/:id/revoke",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, request, "Keys", "/console/security", async () => {
          await revokeFromConsole(session.agentId, params.id);
          return redirect("/console/security");
        }),
      )({ request, body }),
    { params: Id, body: Form, detail: { hide: true } },
  )
  .get("/security/rotate", signedIn(async (session, request) => render(session, request, "Rotate the API key", "/console/security", confirmRotation("key", session.csrfToken))), {
    detail: { hide: true },
  })
  .post(
    "/rotate",
    action(async (session, request) => {
      const apiKey = await write(() => rotateApiKey(session.agentId));
      const shown = html`<section><p class="ok">The API key was rotated. Store it now: it is not shown again.</p><p class="key" id="new-api-key">${apiKey}</p></section>`;
      return render(session, request, "New API key", "/console/security", shown);
    }),
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/security/owner-key",
    signedIn(async (session, request) => render(session, request, "Replace the owner key", "/console/security", confirmRotation("owner-key", session.csrfToken))),
    { detail: { hide: true } },
  )
  .post(
    "/security/owner-key",
    action(async (session, request) => {
      // The session is checked again once the agent's row is locked: of two rotations at once, one wins.
      const stillSignedIn = function* () {
        return (yield* sessionOf(request))?.agentId === session.agentId;
      };
      const ownerKey = await write(() => rotateOwnerKey(session.agentId, stillSignedIn)).catch((error) => {
        if (error instanceof ApiError && error.code === "UNAUTHORIZED") return null;
        throw error;
      });
      if (ownerKey === null) return signInPage(request, "Your session ended: the owner key was replaced meanwhile.", 401);
      const shown = html`<section><p class="ok">The owner key was replaced. Store it now: it is not shown again.</p><p class="key" id="new-owner-key">${ownerKey}</p>
<p>The old key no longer works, and every console session signed in with it has ended, this one too.</p>
<div class="actions"><a class="button" href="/console">Sign in with the new key</a></div></section>`;
      return page(bare("New owner key", shown), 200, { "set-cookie": cookie(SESSION_COOKIE, "", request, 0) });
    }),
    { body: Form, detail: { hide: true } },
  );
