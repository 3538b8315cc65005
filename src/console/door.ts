// The console's door: how every page and form of /console is reached, on macros as the API's door is
// (src/door/index.ts), and every handler has one shape, `({ session, render, read, write, params, body, w }) => …`:
//
//   .get("/activity", async ({ session, render, w }) => render("Activity", "/console/activity", await activity(session.agentId, w)), { page: true, … })
//   .post("/webhooks/:id/resend", async ({ session, params }) => { await resendDelivery(…); return redirect(…); }, { form: true, section: WEBHOOKS, body: Form, … })
//
// `page: true`: behind sign-in; signed out, the sign-in page, which brings the browser back here.
// `page: { signIn, shows }`: the same, the sign-in page saying why first, or about the agent the path's
// `id` is of (an approval opened from a mail: an owner account that claimed it switches to it).
// `form: true`: a form post behind sign-in (else 401) and its CSRF token (else 403); form fields arrive
// in an object without a prototype, read as its own properties, and a field named (or dotted/bracketed
// through) __proto__, constructor or prototype is refused with 400. Both resolve the `session`, `w`
// (amounts, times and names in the viewer's locale) and `render(title, current, body, status?)`, the
// signed-in page. `section: { title, path }`: a service's refusal (ApiError) is shown on that section's
// page at its status (through the app's error handler, src/http/errors.ts, which asks `showRefusal`).
// `read` and `write` are decorated: route files never import them from the database (test/floors.test.ts).
import { Elysia, status, t } from "elysia";
import { agentsOf, owns } from "../accounts/service";
import { freezeView } from "../agents/freeze";
import { findAgent, isFrozen, namesOf } from "../agents/service";
import { read, write, type Op } from "../db";
import { ApiError } from "../errors";
import { type AgentId, secret } from "../ids";
import { isReservedKey, ownProperty, RESERVED_KEYS } from "../json";
import { MAX_ALLOWLIST } from "../owners/model";
import { pendingCount } from "../owners/service";
import { cookie, LOGIN_CSRF_COOKIE, sameToken, sessionOf, showAgent, type Session } from "../owners/sessions";
import { frozenBanner } from "./brakes";
import { MOST_KNOWN } from "./counterparties";
import { bare, html, layout, page, raw, writerFor, type Writer } from "./views";

/**
 * Form posts are read leniently, so a post without its CSRF token is refused (403), not a 400. Room for
 * the largest form, the policy's: its limits, the allowlist box and a checkbox per known counterparty
 * (MOST_KNOWN) and per other agent it allows already (MAX_ALLOWLIST); a new key's (its name, 12
 * scopes, budgets, the expiry) is smaller.
 */
export const Form = t.Optional(t.Record(t.String({ maxLength: 50 }), t.String({ maxLength: 40_000 }), { maxProperties: 30 + MOST_KNOWN + MAX_ALLOWLIST }));
export type Fields = Record<string, string>;
export const field = (body: unknown, name: string) => (body ? ownProperty(body as Fields, name) : undefined);
export const reservedField = (body: unknown) => Object.keys(body ?? {}).find(isReservedKey) ?? null;
export const reservedMessage = (name: string) => `The form field "${name}" is not accepted: no field of the console is named with ${[...RESERVED_KEYS].join(", ")}.`;
export const redirect = (to: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location: to, ...headers } });
export const refused = (reason: string, status = 403) => page(bare("Refused", html`<p class="error">${reason}</p><p><a href="/console">Back</a></p>`), status);
export const Id = t.Object({ id: t.String({ format: "uuid" }) });

/**
 * Where sign-in may send the browser back to (`next`): a console page of this service, spelled as a
 * URL's path and query are (printable ASCII: the consent page's own URL, percent-encoded). A control
 * character, a line separator or anything else is refused before anything is written: it could not
 * be sent in the Location header.
 */
export const CONSOLE_PATH = /^\/console\/[A-Za-z0-9][\x21-\x7e]*$/;

/** A new double-submit CSRF token for a form before sign-in (set as LOGIN_CSRF_COOKIE with the page). */
export const loginCsrf = () => secret("");

/** `next`: the console page to go back to once signed in (an approval from a mail, the OAuth consent page). */
export function signInPage(request: Request, error?: string, status = 200, next?: string) {
  const csrf = loginCsrf();
  const hidden = raw(html`<input type="hidden" name="csrf" value="${csrf}">${next ? raw(html`<input type="hidden" name="next" value="${next}">`) : ""}`);
  return page(
    bare(
      "Sign in",
      html`${error ? raw(html`<p class="error">${error}</p>`) : ""}<section><h2>With your e-mail address</h2><p>The address you claimed your agents with: we mail you a link that signs you in.</p>
<form method="post" action="/console/login/email">${hidden}
<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">E-mail me a sign-in link</button></form></section>
<section><h2>With an owner key</h2><p>An agent's owner key (po_…): it signs you in to that one agent.</p>
<form method="post" action="/console/login">${hidden}
<label for="ownerKey">Owner key</label><input id="ownerKey" name="ownerKey" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form></section>`,
    ),
    status,
    { "set-cookie": cookie(LOGIN_CSRF_COOKIE, csrf, request, 600) },
  );
}

/**
 * The signed-in page: the agent's name and the count of what waits for the owner in the header, the
 * owner's freeze offered there, and while a brake is on the banner that says so above the body.
 */
export async function signedInPage(session: Session, title: string, current: string, body: string, status = 200) {
  const agent = (await read(findAgent(session.agentId)))!;
  const pending = await read(pendingCount(session.agentId));
  const others = session.ownerId === null ? [] : [...(await read(namesOf((await read(agentsOf(session.ownerId))).filter((id) => id !== agent.id))))].map(([id, name]) => ({ id, name }));
  const banner = isFrozen(agent) ? frozenBanner(await read(freezeView(agent.id))) : "";
  const shell = { title, agentName: agent.name, agentId: agent.id, pending, csrf: session.csrfToken, current, others, banner, canFreeze: agent.ownerFrozenAt === null };
  return page(layout(shell, body), status);
}

/** A signed-in page of `current`'s section (the menu marks it), at `status` (200). */
export type Render = (title: string, current: string, body: string, status?: number) => Promise<Response>;
/** What a page or form resolves: the session, the viewer's writer, the signed-in frame. */
export type Signed = { session: Session; w: Writer; render: Render };
/** The door's verbs (on every handler's context), for a route's helper. */
export type Verbs = { read: typeof read; write: typeof write };
const signed = (session: Session, request: Request): Signed => ({
  session,
  w: writerFor(request),
  render: (title, current, body, status) => signedInPage(session, title, current, body, status),
});

/** The session as it shows `agentId` when its owner account claimed that agent (switched for good); otherwise as it is. */
async function sessionShowing(session: Session, request: Request, agentId: AgentId | null): Promise<Session> {
  if (agentId === null || agentId === session.agentId || session.ownerId === null || !(await read(owns(session.ownerId, agentId)))) return session;
  await write(() => showAgent(request, agentId));
  return { ...session, agentId };
}

/** Ends the request from a macro's resolve with a ready page (its status, content-type and set-cookie kept). */
export const answerNow = (response: Response) => status(response.status as 200, response as unknown as string);

/**
 * What a page asks beyond sign-in: `signIn`, what the sign-in page says first (why: the OAuth consent);
 * `shows`, the agent the page is about, read from the path's `id` (an approval opened from a mail).
 */
type About = { signIn?: string; shows?: (id: string) => Op<AgentId | null> };

export const consoleDoor = new Elysia({ name: "console-door" }).decorate({ read, write }).macro({
  page: (about: true | About) => ({
    async resolve({ request, params }) {
      const { signIn, shows } = about === true ? {} : about;
      const session = await read(sessionOf(request));
      if (!session) {
        // Signed in, the browser comes back here (an approval opened from a mail).
        const { pathname, search } = new URL(request.url);
        return answerNow(signInPage(request, signIn, 200, CONSOLE_PATH.test(pathname + search) && pathname !== "/console" ? pathname + search : undefined));
      }
      return signed(shows ? await sessionShowing(session, request, await read(shows((params as { id: string }).id))) : session, request);
    },
  }),
  form: {
    async resolve({ request, body }) {
      const session = await read(sessionOf(request));
      if (!session) return answerNow(signInPage(request, "Sign in first.", 401));
      if (!sameToken(session.csrfToken, field(body, "csrf"))) return answerNow(refused("Missing or wrong CSRF token. Reload the page and try again."));
      const reserved = reservedField(body);
      if (reserved !== null) return answerNow(refused(reservedMessage(reserved), 400));
      return signed(session, request);
    },
  },
  // The error handler calls it with the request's context, where `page` or `form` resolved `render`.
  section: ({ title, path }: { title: string; path: string }) => ({
    resolve: () => ({
      showRefusal: (error: ApiError, context: Partial<Signed>) =>
        context.render?.(title, path, html`<section><p class="error">${error.message}</p><p><a href="${path}">Back</a></p></section>`, error.status) ?? null,
    }),
  }),
});
