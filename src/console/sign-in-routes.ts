// Signing in to the console, and claiming an agent. An owner signs in with a link mailed to their
// address (an owner account: every agent it claimed) or with one agent's owner key (po_…, for scripts
// and agents registered before owner accounts). A claim link, mailed at registration to the agent's
// ownerEmail, makes whoever opens it (and confirms) the agent's owner and signs them in. A link only
// opens a page; its button does the deed (a mail scanner's GET changes nothing). Before sign-in, forms
// carry a double-submit CSRF token (LOGIN_CSRF_COOKIE).
import { Elysia, t } from "elysia";
import { agentsOf, claimAgent, openLink, ownerByEmail, ownerFor, ownerOf, owns, recentSignInLinks, SIGN_IN_LINKS_PER_HOUR, useLink } from "../accounts/service";
import { findAgent, findAgentByKeyHash } from "../agents/service";
import { ApiError } from "../errors";
import { sha256Hex, uuid } from "../ids";
import { isMailbox } from "../email";
import { mailClaimLink, mailSignInLink } from "../notices/links";
import { closeSession, cookie, LOGIN_CSRF_COOKIE, openSession, readCookie, sameToken, SESSION_COOKIE, sessionOf, showAgent } from "../owners/sessions";
import { CONSOLE_PATH, consoleDoor, field, Form, loginCsrf, redirect, refused, reservedField, reservedMessage, signInPage } from "./door";
import { bare, html, page } from "./views";
import { AgentIdParam } from "../http/models";

const Token = t.Object({ token: t.String({ minLength: 20, maxLength: 100, pattern: "^[A-Za-z0-9_-]+$" }) });

/** A pre-sign-in form post: its double-submit CSRF token and no reserved field name; a refusal page, or null. */
function refusedBeforeSignIn(request: Request, body: unknown): Response | null {
  if (!sameToken(readCookie(request, LOGIN_CSRF_COOKIE), field(body, "csrf"))) return refused("The form expired or did not come from this console. Reload and try again.");
  const reserved = reservedField(body);
  return reserved === null ? null : refused(reservedMessage(reserved), 400);
}

/** `next` of a sign-in form: undefined, a console page, or a refusal (400). */
function nextOf(body: unknown): string | undefined | Response {
  const next = field(body, "next") || undefined;
  if (next !== undefined && !CONSOLE_PATH.test(next)) return refused("The page to go back to after signing in is not a console page of this service. Sign in from /console.", 400);
  return next;
}

const signedInTo = (request: Request, next: string | undefined, { token, maxAgeSeconds }: { token: string; maxAgeSeconds: number }) =>
  redirect(next ?? "/console", { "set-cookie": cookie(SESSION_COOKIE, token, request, maxAgeSeconds) });

/** A confirmation page before sign-in: its text and one button posting back to `action` (with the CSRF cookie set). */
function confirmation(request: Request, title: string, text: string, action: string, button: string, status = 200) {
  const csrf = loginCsrf();
  return page(bare(title, html`<section class="confirm"><p>${text}</p><form method="post" action="${action}"><input type="hidden" name="csrf" value="${csrf}"><div class="actions"><button type="submit">${button}</button></div></form></section>`), status, {
    "set-cookie": cookie(LOGIN_CSRF_COOKIE, csrf, request, 600),
  });
}
const expiredLink = (what: string) => page(bare("Link expired", html`<section><p class="error">This ${what} link was already used, has expired, or never existed.</p><p><a href="/console">Sign in</a> to ask for a new one.</p></section>`), 410);

export const signInRoutes = new Elysia({ name: "console-sign-in" })
  .use(consoleDoor)
  .post(
    "/login",
    async ({ request, body, read, write }) => {
      const refusal = refusedBeforeSignIn(request, body);
      if (refusal) return refusal;
      const next = nextOf(body);
      if (next instanceof Response) return next;
      const ownerKey = field(body, "ownerKey") ?? "";
      if (ownerKey.startsWith("pp_")) return signInPage(request, "This is an agent key (pp_…); sign in with the owner key (po_…) shown at registration.", 401, next);
      const agent = ownerKey.startsWith("po_") ? await read(findAgentByKeyHash("ownerKeyHash", sha256Hex(ownerKey))) : null;
      if (!agent) return signInPage(request, "That owner key is not valid: it is not the po_… key of any agent (it may have been replaced).", 401, next);
      return signedInTo(request, next, await write(() => openSession(agent.id)));
    },
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/login/email",
    async ({ request, body, write }) => {
      const refusal = refusedBeforeSignIn(request, body);
      if (refusal) return refusal;
      const next = nextOf(body);
      if (next instanceof Response) return next;
      const email = (field(body, "email") ?? "").trim();
      if (!isMailbox(email)) return signInPage(request, "Write the e-mail address you claimed your agents with (local@domain).", 400, next);
      // The same answer whether or not an owner uses the address: the page tells nobody who has an account.
      await write(function* () {
        const owner = yield* ownerByEmail(email);
        if (owner && (yield* recentSignInLinks(owner.email)) < SIGN_IN_LINKS_PER_HOUR) yield* mailSignInLink(owner.email, next ?? null);
      });
      return page(bare("Check your mail", html`<section><p class="ok" role="status">If an owner account uses ${email}, a sign-in link is on its way there. It works once, for 15 minutes.</p></section>`));
    },
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/login/link/:token",
    async ({ request, params, read }) => {
      const link = await read(openLink(params.token, "sign_in"));
      if (!link) return expiredLink("sign-in");
      return confirmation(request, "Sign in", `Sign in to the agentbank console as ${link.email}?`, `/console/login/link/${params.token}`, "Sign in");
    },
    { params: Token, detail: { hide: true } },
  )
  .post(
    "/login/link/:token",
    async ({ request, params, body, write }) => {
      const refusal = refusedBeforeSignIn(request, body);
      if (refusal) return refusal;
      try {
        const { session, next } = await write(function* () {
          const link = yield* useLink(params.token, "sign_in");
          const owner = (yield* ownerByEmail(link.email))!;
          const [first] = yield* agentsOf(owner.id);
          return { session: yield* openSession(first!, owner.id), next: link.next ?? undefined };
        });
        return signedInTo(request, next, session);
      } catch (error) {
        if (error instanceof ApiError) return expiredLink("sign-in");
        throw error;
      }
    },
    { params: Token, body: Form, detail: { hide: true } },
  )
  .get(
    "/claim/:token",
    async ({ request, params, read }) => {
      const link = await read(openLink(params.token, "claim"));
      const agent = link?.agentId ? await read(findAgent(link.agentId)) : null;
      if (!link || !agent) return expiredLink("claim");
      return confirmation(
        request,
        "Claim an agent",
        `Become the owner of the agent “${agent.name}” as ${link.email}? You will set what it may spend, approve what goes above that, and be able to stop it.`,
        `/console/claim/${params.token}`,
        `Claim “${agent.name}”`,
      );
    },
    { params: Token, detail: { hide: true } },
  )
  .post(
    "/claim/:token",
    async ({ request, params, body, write }) => {
      const refusal = refusedBeforeSignIn(request, body);
      if (refusal) return refusal;
      try {
        const session = await write(function* () {
          const link = yield* useLink(params.token, "claim");
          const owner = yield* ownerFor(link.email);
          yield* claimAgent(link.agentId!, owner.id);
          return yield* openSession(link.agentId!, owner.id);
        });
        return signedInTo(request, undefined, session);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === "INVALID_STATE" && error.message.includes("another owner")) return refused(error.message, 409);
        return expiredLink("claim");
      }
    },
    { params: Token, body: Form, detail: { hide: true } },
  )
  .post(
    "/claim-by-mail",
    // Signed in with an agent's owner key, the owner proves an address to claim it: the claim link goes there.
    async ({ session, write, body }) => {
      const email = (field(body, "email") ?? "").trim();
      if (!isMailbox(email)) return refused("Write one e-mail address (local@domain).", 400);
      const sent = await write(function* () {
        if (yield* ownerOf(session.agentId)) return false;
        const agent = (yield* findAgent(session.agentId))!;
        yield* mailClaimLink({ id: agent.id, name: agent.name, ownerName: agent.ownerName, ownerEmail: email }, `agent.claim:${agent.id}:${uuid()}`);
        return true;
      });
      if (!sent) return refused("This agent is already claimed by an owner account.", 409);
      return page(bare("Check your mail", html`<section><p class="ok" role="status">A claim link is on its way to ${email}. Open it there to claim the agent; it works once, for 7 days.</p><p><a href="/console">Back</a></p></section>`));
    },
    { form: true, body: Form, detail: { hide: true } },
  )
  .post(
    "/agents/:id/show",
    async ({ session, read, write, request, params }) => {
      // Only an owner account's session switches, and only to an agent it claimed.
      if (session.ownerId === null || !(await read(owns(session.ownerId, params.id)))) return refused("That is not one of your agents.", 404);
      await write(() => showAgent(request, params.id));
      return redirect("/console");
    },
    { form: true, params: AgentIdParam, body: Form, detail: { hide: true } },
  )
  .post(
    "/logout",
    async ({ request, body, read, write }) => {
      const session = await read(sessionOf(request));
      if (session && !sameToken(session.csrfToken, field(body, "csrf"))) return refused("Missing or wrong CSRF token.");
      const reserved = reservedField(body);
      if (reserved !== null) return refused(reservedMessage(reserved), 400);
      await write(() => closeSession(request));
      return redirect("/console", { "set-cookie": cookie(SESSION_COOKIE, "", request, 0) });
    },
    { body: Form, detail: { hide: true } },
  );

