// /console: the human owner's side of an agent. Signs in with the owner key (po_…); shows balances
// and history, negotiations waiting for approval (approved with the same logic as
// POST /negotiations/{id}/human-approve), open loans, bets, contracts and subscriptions, webhook
// deliveries, and rotates the agent's API key.
import { Elysia, t } from "elysia";
import { balancesView, findAgentByKeyHash, rotateApiKey } from "../agents/service";
import { myBets } from "../betting/service";
import { myContracts } from "../contracts/service";
import { all, read, write } from "../db";
import { ApiError } from "../errors";
import { secret, sha256Hex } from "../ids";
import { historyOf } from "../ledger/history";
import { myLoans } from "../lending/service";
import { humanApprove, listNegotiations } from "../negotiations/service";
import { listSubscriptions } from "../subscriptions/service";
import { closeSession, cookie, LOGIN_CSRF_COOKIE, openSession, readCookie, sameToken, SESSION_COOKIE, sessionOf } from "./sessions";
import { html, layout, page, raw, table } from "./views";

const PAGE_SIZE = 20;
/** Form posts are read leniently, so a post without its CSRF token is refused (403), not a 400. */
const Form = t.Optional(t.Record(t.String({ maxLength: 50 }), t.String({ maxLength: 500 }), { maxProperties: 10 }));
const field = (body: unknown, name: string) => (body as Record<string, string> | undefined)?.[name];
const redirect = (to: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location: to, ...headers } });
const forbidden = (reason: string) => page(layout("Refused", html`<p class="error">${reason}</p><p><a href="/console">Back</a></p>`, false), 403);

function signInPage(request: Request, error?: string, status = 200) {
  const csrf = secret("");
  return page(
    layout(
      "Sign in",
      html`<section><p>Sign in with your agent's <strong>owner key</strong> (po_…), shown once when the agent registered.</p>
${error ? raw(html`<p class="error">${error}</p>`) : ""}
<form method="post" action="/console/login"><input type="hidden" name="csrf" value="${csrf}">
<label for="ownerKey">Owner key</label><input id="ownerKey" name="ownerKey" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form></section>`,
      false,
    ),
    status,
    { "set-cookie": cookie(LOGIN_CSRF_COOKIE, csrf, request, 600) },
  );
}


const money = (row: { amount: number; currency: string }) => `${row.amount} ${row.currency}`;

export const consoleRoutes = new Elysia({ prefix: "/console", name: "console" })
  .get(
    "",
    async ({ request, query }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request);
      const pageNumber = Math.max(1, Math.min(100_000, Number(query.page ?? 1) || 1));
      const { data, total } = await read(historyOf(session.agentId, PAGE_SIZE, (pageNumber - 1) * PAGE_SIZE));
      const balances = await read(balancesView(session.agentId));
      const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
      const body = html`<section><h2>Balances</h2>${raw(table(["Currency", "Available", "Held in escrow"], balances.map((b) => [b.currency, b.available, b.held])))}</section>
<section><h2>History</h2>${raw(table(["When", "Type", "Amount", "Counterparty", "Reference"], data.map((e) => [e.createdAt, e.type, `${e.amount} ${e.currency}`, e.counterpartyId ?? "", `${e.reference.type} ${e.reference.id}`])))}
<p>Page ${pageNumber} of ${last} ${pageNumber > 1 ? raw(html`<a href="/console?page=${pageNumber - 1}">← newer</a>`) : ""} ${pageNumber < last ? raw(html`<a href="/console?page=${pageNumber + 1}">older →</a>`) : ""}</p></section>`;
      return page(layout("Overview", body, true, session.csrfToken));
    },
    { query: t.Object({ page: t.Optional(t.String({ maxLength: 10 })) }), detail: { hide: true } },
  )
  .post(
    "/login",
    async ({ request, body }) => {
      if (!sameToken(readCookie(request, LOGIN_CSRF_COOKIE), field(body, "csrf"))) return forbidden("The form expired or did not come from this console. Reload and try again.");
      const ownerKey = field(body, "ownerKey") ?? "";
      const agent = ownerKey.startsWith("po_") ? await read(findAgentByKeyHash("owner_key_hash", sha256Hex(ownerKey))) : null;
      if (!agent) return signInPage(request, "That owner key is not valid.", 401);
      const { token, maxAgeSeconds } = await write(() => openSession(agent.id));
      return redirect("/console", { "set-cookie": cookie(SESSION_COOKIE, token, request, maxAgeSeconds) });
    },
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/logout",
    async ({ request, body }) => {
      const session = await read(sessionOf(request));
      if (session && !sameToken(session.csrfToken, field(body, "csrf"))) return forbidden("Missing or wrong CSRF token.");
      await write(() => closeSession(request));
      return redirect("/console", { "set-cookie": cookie(SESSION_COOKIE, "", request, 0) });
    },
    { body: Form, detail: { hide: true } },
  )
  .get(
    "/approvals",
    async ({ request }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request);
      const { data } = await listNegotiations(session.agentId, { status: "AWAITING_HUMAN_APPROVAL", limit: 100, offset: 0 });
      const items = data.map(
        (n) => html`<section><h2>${n.subject}</h2><p>Between ${n.initiatorId} and ${n.counterpartyId}; accepted by ${n.acceptedBy} at ${n.acceptedAt}.</p>
<p>The accepted offer, exactly as approved:</p><pre>${JSON.stringify(n.currentOffer, null, 2)}</pre>
<form method="post" action="/console/approve/${n.id}"><input type="hidden" name="csrf" value="${session.csrfToken}"><button type="submit">Approve</button></form></section>`,
      );
      return page(layout("Waiting for your approval", items.length ? items.join("") : html`<section><p>No negotiation is waiting for you.</p></section>`, true, session.csrfToken));
    },
    { detail: { hide: true } },
  )
  .post(
    "/approve/:id",
    async ({ request, params, body }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request, "Sign in first.", 401);
      if (!sameToken(session.csrfToken, field(body, "csrf"))) return forbidden("Missing or wrong CSRF token.");
      try {
        const approved = await write(() => humanApprove(session.agentId, params.id));
        return page(layout("Approved", html`<section><p class="ok">Approved: ${approved.subject} is now ${approved.status}.</p><p><a href="/console/approvals">Back to approvals</a></p></section>`, true, session.csrfToken));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return page(layout("Not approved", html`<section><p class="error">${error.message}</p><p><a href="/console/approvals">Back</a></p></section>`, true, session.csrfToken), error.status);
      }
    },
    { params: t.Object({ id: t.String({ format: "uuid" }) }), body: Form, detail: { hide: true } },
  )
  .get(
    "/activity",
    async ({ request }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request);
      const all = { limit: 100, offset: 0 };
      const loans = (await myLoans(session.agentId, all)).data;
      const bets = (await read(myBets(session.agentId, all))).data;
      const contracts = (await read(myContracts(session.agentId, all))).data;
      const subscriptions = (await listSubscriptions(session.agentId, all)).data;
      const body = html`<section><h2>Loans</h2>${raw(table(["Loan", "Status", "Principal", "Outstanding", "Due"], loans.map((l) => [l.id, l.status, `${l.principal} ${l.currency}`, `${l.outstanding} ${l.currency}`, l.dueAt])))}</section>
<section><h2>Bets</h2>${raw(table(["Bet", "Status", "Stake", "Condition", "Outcome"], bets.map((b) => [b.id, b.status, money(b), b.condition, b.outcome ?? ""])))}</section>
<section><h2>Contracts</h2>${raw(table(["Contract", "Status", "Title", "Escrow"], contracts.map((c: any) => [c.id, c.status, c.title, `${c.escrowAmount} ${c.currency}`])))}</section>
<section><h2>Subscriptions</h2>${raw(table(["Subscription", "Status", "Amount", "Frequency", "Next charge"], subscriptions.map((s) => [s.id, s.status, money(s), s.frequency, s.nextChargeAt ?? ""])))}</section>`;
      return page(layout("Activity", body, true, session.csrfToken));
    },
    { detail: { hide: true } },
  )
  .get(
    "/webhooks",
    async ({ request }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request);
      const rows = await read(
        all<{ event: string; url: string; outcome: string; httpStatus: bigint | null; error: string | null; durationMs: bigint; createdAt: bigint }>(
          "SELECT event, url, outcome, http_status AS httpStatus, error, duration_ms AS durationMs, created_at AS createdAt FROM webhook_deliveries WHERE agent_id = ? ORDER BY created_at DESC LIMIT 50",
          session.agentId,
        ),
      );
      const body = html`<section>${raw(table(["When", "Event", "Outcome", "Status", "ms", "URL", "Error"], rows.map((r) => [new Date(Number(r.createdAt)).toISOString(), r.event, r.outcome, r.httpStatus ?? "", r.durationMs, r.url, r.error ?? ""])))}</section>`;
      return page(layout("Webhook deliveries", body, true, session.csrfToken));
    },
    { detail: { hide: true } },
  )
  .get(
    "/security",
    async ({ request }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request);
      const body = html`<section><p>Rotating replaces the agent's API key at once: the old key stops working. The new key is shown once.</p>
<form method="post" action="/console/rotate"><input type="hidden" name="csrf" value="${session.csrfToken}"><button type="submit">Rotate the API key</button></form></section>`;
      return page(layout("API key", body, true, session.csrfToken));
    },
    { detail: { hide: true } },
  )
  .post(
    "/rotate",
    async ({ request, body }) => {
      const session = await read(sessionOf(request));
      if (!session) return signInPage(request, "Sign in first.", 401);
      if (!sameToken(session.csrfToken, field(body, "csrf"))) return forbidden("Missing or wrong CSRF token.");
      const apiKey = await write(() => rotateApiKey(session.agentId));
      const shown = html`<section><p class="ok">The API key was rotated. Store it now: it is not shown again.</p><p class="key" id="new-api-key">${apiKey}</p></section>`;
      return page(layout("New API key", shown, true, session.csrfToken));
    },
    { body: Form, detail: { hide: true } },
  );
