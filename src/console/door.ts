// The console's door: how every page and form of /console is reached. A page is behind sign-in
// (signedIn), a form post behind sign-in and its CSRF token (action); form fields arrive in an object
// without a prototype, read as its own properties, and a field named (or dotted/bracketed through)
// __proto__, constructor or prototype is refused with 400. A service's refusal (ApiError) is shown on
// the section's page at its status (refusedAs).
import { t } from "elysia";
import { agentsOf, owns } from "../accounts/service";
import { freezeView } from "../agents/freeze";
import { findAgent, isFrozen, namesOf } from "../agents/service";
import { read, write } from "../db";
import { ApiError } from "../errors";
import { type AgentId, secret } from "../ids";
import { isReservedKey, ownProperty, RESERVED_KEYS } from "../json";
import { MAX_ALLOWLIST } from "../owners/model";
import { pendingCount } from "../owners/service";
import { cookie, LOGIN_CSRF_COOKIE, sameToken, sessionOf, showAgent, type Session } from "../owners/sessions";
import { frozenBanner } from "./brakes";
import { MOST_KNOWN } from "./counterparties";
import { bare, html, layout, page, raw } from "./views";

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
export async function render(session: Session, title: string, current: string, body: string, status = 200) {
  const agent = (await read(findAgent(session.agentId)))!;
  const pending = await read(pendingCount(session.agentId));
  const others = session.ownerId === null ? [] : [...(await read(namesOf((await read(agentsOf(session.ownerId))).filter((id) => id !== agent.id))))].map(([id, name]) => ({ id, name }));
  const banner = isFrozen(agent) ? frozenBanner(await read(freezeView(agent.id))) : "";
  const shell = { title, agentName: agent.name, agentId: agent.id, pending, csrf: session.csrfToken, current, others, banner, canFreeze: agent.ownerFrozenAt === null };
  return page(layout(shell, body), status);
}

/** Runs an owner's action; if a service refuses it (ApiError), its message on the section's page, at its status. */
export async function refusedAs(session: Session, title: string, current: string, act: () => Promise<Response>) {
  try {
    return await act();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return render(session, title, current, html`<section><p class="error">${error.message}</p><p><a href="${current}">Back</a></p></section>`, error.status);
  }
}

type Handler = (session: Session, request: Request) => Promise<Response>;
/** A page behind sign-in. */
export const signedIn = (handler: Handler) => async ({ request }: { request: Request }) => {
  const session = await read(sessionOf(request));
  if (session) return handler(session, request);
  // Signed in, the browser comes back here (an approval opened from a mail).
  const { pathname, search } = new URL(request.url);
  return signInPage(request, undefined, 200, CONSOLE_PATH.test(pathname + search) && pathname !== "/console" ? pathname + search : undefined);
};
/** The session as it shows `agentId` when its owner account claimed that agent (switched for good); otherwise as it is. */
export async function sessionShowing(session: Session, request: Request, agentId: AgentId | null): Promise<Session> {
  if (agentId === null || agentId === session.agentId || session.ownerId === null || !(await read(owns(session.ownerId, agentId)))) return session;
  await write(() => showAgent(request, agentId));
  return { ...session, agentId };
}

/** A form post behind sign-in and its CSRF token. */
export const action = (handler: (session: Session, request: Request, body: unknown) => Promise<Response>) => async ({ request, body }: { request: Request; body: unknown }) => {
  const session = await read(sessionOf(request));
  if (!session) return signInPage(request, "Sign in first.", 401);
  if (!sameToken(session.csrfToken, field(body, "csrf"))) return refused("Missing or wrong CSRF token. Reload the page and try again.");
  const reserved = reservedField(body);
  if (reserved !== null) return refused(reservedMessage(reserved), 400);
  return handler(session, request, body);
};
