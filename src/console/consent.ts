// /console/oauth/consent: the owner decides what an MCP host may do as the agent (src/oauth). It shows
// the client's name (a document client's with its host: the name is the host's own claim), its
// redirect URI (with a warning when it is on this computer), the agent, the scopes asked for as
// checkboxes and a total budget per currency; Approve sends the browser back with a code, Deny with
// error=access_denied: the only answers the redirect URI gets, once the owner has seen it here (a bad
// request is shown on our own page, oauth/authorize.ts). Signed out, the owner signs in first and
// comes back here. The form carries the session's CSRF token like every console form, and the request
// is checked again when it comes back.
import { Elysia } from "elysia";
import { clock } from "../clock";
import { DEFAULT_KEY_LIFETIME_MS } from "../keys/create";
import { tellOwnerOfKey } from "../notices/owner";
import { findAgent } from "../agents/service";
import { ApiError } from "../errors";
import { CURRENCIES, toMinor, type Currency } from "../money";
import { applyRequestedClientDue, AUTHORIZATION_FIELDS, AuthorizationQuery, baseUrlOf, checkAuthorization, redirectTo, type AuthorizationParams } from "../oauth/authorize";
import { issueCode, type AuthorizationRequest, type Consent } from "../oauth/service";
import { clientLabel } from "../oauth/documents";
import { consoleDoor, field, Form, refused } from "./door";
import { html, raw } from "./views";
import { SCOPE_LABELS } from "./words";

const TITLE = "Connect an application";

function consentForm(asked: AuthorizationRequest, params: AuthorizationParams, agent: { name: string; id: string }, csrf: string, error?: string) {
  const hidden = AUTHORIZATION_FIELDS.map((name) => (params[name] !== undefined ? raw(html`<input type="hidden" name="${name}" value="${params[name]}">`) : ""));
  const scopes = asked.scopes.map(
    (scope) => raw(html`<label class="check" title="${scope}"><input type="checkbox" name="scope_${scope}" value="1"${raw(scope === "read" ? " checked" : "")}> ${SCOPE_LABELS[scope]}</label>`),
  );
  const budgets = CURRENCIES.map((currency) => raw(html`<label>${currency}<input type="number" name="budget_${currency}" min="0" step="any" inputmode="decimal"></label>`));
  return html`<section class="consent"><h2>“${asked.client.name}” asks to act as your agent ${agent.name}</h2>
${whoAsks(asked)}
<p>Agent: <strong title="${agent.id}">${agent.name}</strong><button type="button" class="copy" data-copy="${agent.id}" aria-label="copy the id of ${agent.name}">copy id</button>. Resource: <code>${asked.resource}</code>.</p>
<p>Approve or Deny, the browser then goes to <code id="redirect-uri">${asked.redirectUri}</code>: anyone may register an application, so go on only if you know that address as this application's.</p>
${error ? raw(html`<p class="error">${error}</p>`) : ""}
<form method="post" action="/console/oauth/consent"><input type="hidden" name="csrf" value="${csrf}">${hidden}
<fieldset><legend>What it may do</legend>${scopes}</fieldset>
<fieldset><legend>Budget: the most it may spend in total, per currency</legend><p class="muted" id="budget-rule">With a budget in any currency it may spend only the currencies you give a budget, up to that amount; with none it has no budget of its own. Your policy and the tier apply either way.</p><div class="grid">${budgets}</div></fieldset>
<p class="muted">It gets access tokens that last an hour, renewed within this grant for 30 days. Revoke the grant at any time: it is the key named “MCP host: ${clientLabel(asked.client)}”.</p>
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny" class="danger">Deny</button></div></form></section>`;
}

/**
 * Who asks, beyond the name it gives itself: a document client's host (the draft: the owner sees the
 * client_id's host), and a warning when the browser goes back to this computer, where any program may
 * listen (MCP 2026-07-28: localhost redirect URIs cannot be told from an impersonator's).
 */
function whoAsks(asked: AuthorizationRequest) {
  const identity = asked.client.documentHost
    ? html`<p id="client-host">The application is the one at <strong>${asked.client.documentHost}</strong>: its client_id is <code>${asked.client.id}</code>, and its name above is what that address says about itself, unchecked.</p>`
    : html`<p id="client-host">The application registered itself here under the name above; anyone may register any name.</p>`;
  const local = URL.parse(asked.redirectUri);
  const warning = local && local.protocol === "http:" ? html`<p class="error" id="loopback-warning">The browser goes back to a program on this computer (${local.host}): any program on it could be waiting there, so approve only if you just started this connection from an application you trust.</p>` : "";
  return raw(identity + warning);
}

/** The owner's choice from the form: the ticked scopes (of those asked for) and the budgets; a string says what is wrong. */
function consentOf(body: unknown, asked: AuthorizationRequest): Consent | string {
  const scopes = asked.scopes.filter((scope) => field(body, `scope_${scope}`) !== undefined);
  if (scopes.length === 0) return "Tick at least one thing it may do, or Deny.";
  const budgets: Consent["budgets"] = Object.create(null);
  for (const currency of CURRENCIES) {
    const text = field(body, `budget_${currency}`)?.trim();
    if (!text) continue;
    try {
      toMinor(Number(text), currency, `The ${currency} budget`);
    } catch (error) {
      if (error instanceof ApiError) return error.message;
      throw error;
    }
    budgets[currency as Currency] = Number(text);
  }
  return { scopes, budgets };
}

const paramsOf = (body: unknown): AuthorizationParams => Object.fromEntries(AUTHORIZATION_FIELDS.flatMap((name) => (field(body, name) !== undefined ? [[name, field(body, name)!]] : [])));

export const consentRoutes = new Elysia({ prefix: "/console/oauth", name: "console-consent" })
  .use(consoleDoor)
  .get(
    "/consent",
    async ({ session, render, read, request, query }) => {
      await applyRequestedClientDue(query);
      const checked = await checkAuthorization(query, baseUrlOf(request));
      if ("page" in checked) return render(TITLE, "/console/security", html`<section><p class="error">${checked.page}</p></section>`, 400);
      const agent = (await read(findAgent(session.agentId)))!;
      return render(TITLE, "/console/security", consentForm(checked.ok, query, agent, session.csrfToken));
    },
    { page: { signIn: "Sign in to decide what the application may do." }, query: AuthorizationQuery, detail: { hide: true } },
  )
  .post(
    "/consent",
    async ({ session, render, read, write, request, body }) => {
      const params = paramsOf(body);
      await applyRequestedClientDue(params);
      const checked = await checkAuthorization(params, baseUrlOf(request));
      if ("page" in checked) return refused(checked.page, 400);
      const asked = checked.ok;
      const decision = field(body, "decision");
      if (decision === "deny") return redirectTo(asked, { error: "access_denied", error_description: "the owner denied the request" });
      if (decision !== "approve") return refused("Choose Approve or Deny.", 400);
      const consent = consentOf(body, asked);
      if (typeof consent === "string") {
        const agent = (await read(findAgent(session.agentId)))!;
        return render(TITLE, "/console/security", consentForm(asked, params, agent, session.csrfToken, consent), 400);
      }
      const code = await write(function* () {
        const issued = yield* issueCode(session.agentId, asked, consent);
        const until = clock.nowMs() + DEFAULT_KEY_LIFETIME_MS;
        yield* tellOwnerOfKey(session.agentId, { id: null, name: `MCP host: ${clientLabel(asked.client)}`, scopes: consent.scopes, expiresAt: until }, "You (consenting in the console)");
        return issued;
      });
      return redirectTo(asked, { code });
    },
    { form: true, body: Form, detail: { hide: true } },
  );

