// The operator console's views of the service: failing webhooks across agents, withdrawals by state
// (those waiting on the chain first, the longest-waiting first), the chain and treasury (GET
// /admin/chain's), the ledger check (run on a button: it may be slow), the audit log and the mail
// outbox — what mail there is when no SMTP server is configured. Each reads through the same op as the
// operator API's route.
import { Elysia, t } from "elysia";
import { html, raw, status, table } from "../console/views";
import { checkEverything } from "../admin/check";
import { chainStatus } from "../chain/status";
import { withdrawalQueue } from "../chain/withdrawals";
import { config } from "../config";
import { ApiError } from "../errors";
import { mailList } from "../mail/service";
import { auditList } from "../operators/audit";
import { failingDeliveries } from "../webhooks/service";
import { operatorConsoleDoor } from "./door";
import { OPERATOR_PATH } from "./sessions";
import { nextPage, PageField, shown, windowOf } from "./views";

const WITHDRAWAL_STATES = ["SUBMITTED", "PENDING", "FAILED", "CONFIRMED"] as const;
const path = (page: string) => `${OPERATOR_PATH}/${page}`;
const agentLink = (id: string) => raw(html`<a href="${OPERATOR_PATH}/agents/${id}">${id}</a>`);
const age = (seconds: number) => (seconds < 3600 ? `${Math.floor(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`);

export const statusRoutes = new Elysia({ name: "operator-console-status" })
  .use(operatorConsoleDoor)
  .get(
    "/webhooks",
    async ({ render, read, query }) => {
      const failing = await read(failingDeliveries(undefined, windowOf(query.page)));
      const rows = failing.data.map((d) => [agentLink(d.agentId), d.event, d.url, status(d.outcome), d.httpStatus ?? "", d.error ?? "", d.createdAt]);
      return render("Failing webhooks", path("webhooks"), html`<section>${raw(table(["Agent", "Event", "URL", "Outcome", "HTTP", "Error", "At"], rows))}${raw(nextPage(path("webhooks"), query, rows.length))}</section>`);
    },
    { operatorPage: true, query: t.Object({ page: PageField }), detail: { hide: true } },
  )
  .get(
    "/withdrawals",
    async ({ render, read, query }) => {
      // Without a state chosen, each state's oldest first, the ones waiting on the chain (SUBMITTED) at the top.
      const states = query.status ? [query.status] : WITHDRAWAL_STATES;
      const sections = [];
      for (const state of states) {
        const queue = await read(withdrawalQueue({ status: state }, windowOf(query.status ? query.page : undefined)));
        const rows = queue.data.map((w) => [agentLink(w.agentId), `${w.amount} ${w.currency}`, w.toAddress, w.txHash ?? "", age(w.ageSeconds), w.error ?? ""]);
        const more = query.status ? nextPage(path("withdrawals"), query, rows.length) : rows.length ? html`<p><a href="${path("withdrawals")}?status=${state}">All ${state}</a></p>` : "";
        sections.push(html`<section><h2>${state}</h2>${raw(table(["Agent", "Amount", "To", "Transaction", "Waiting", "Error"], rows))}${raw(more)}</section>`);
      }
      const filter = html`<section><form method="get" action="${path("withdrawals")}" class="export"><label>State<select name="status"><option value="">every state, stuck first</option>${raw(WITHDRAWAL_STATES.map((s) => html`<option${raw(s === query.status ? " selected" : "")}>${s}</option>`).join(""))}</select></label><button type="submit">Show</button></form></section>`;
      return render("Withdrawals", path("withdrawals"), filter + sections.join(""));
    },
    { operatorPage: true, query: t.Object({ status: t.Optional(t.Union([...WITHDRAWAL_STATES.map((s) => t.Literal(s)), t.Literal("")])), page: PageField }), detail: { hide: true } },
  )
  .get(
    "/chain",
    async ({ render }) => {
      const body = await chainStatus().then(
        (chain) => shown(chain),
        (error) => {
          if (!(error instanceof ApiError)) throw error;
          return html`<p class="muted">${error.message}</p>`;
        },
      );
      return render("Chain and treasury", path("chain"), html`<section>${raw(body)}</section>`);
    },
    { operatorPage: true, detail: { hide: true } },
  )
  .get(
    "/ledger",
    async ({ render, query }) => {
      const check = query.run === "yes" ? await checkEverything() : null;
      const result = check ? html`<p class="${check.ok ? "ok" : "error"}" role="status">${check.ok ? "ok: every invariant holds" : "NOT ok: see below"}</p>${raw(shown(check))}` : "";
      return render(
        "Ledger check",
        path("ledger"),
        html`<section><p>Every invariant: balanced entries, balances equal postings, nothing negative, holds, money in flight, x402 sales and, with a chain, the treasury. It reads everything: it may take a while.</p>
<form method="get" action="${path("ledger")}"><input type="hidden" name="run" value="yes"><button type="submit">Run the check</button></form>${raw(result)}</section>`,
      );
    },
    { operatorPage: true, query: t.Object({ run: t.Optional(t.String({ maxLength: 3 })) }), detail: { hide: true } },
  )
  .get(
    "/audit",
    async ({ render, read, query }) => {
      const entries = await read(auditList({ operator: query.operator || undefined, action: query.action || undefined }, windowOf(query.page)));
      const rows = entries.data.map((e) => [e.at, e.operator, e.action, e.target ?? "", e.requestId ?? "", e.details === null ? "" : JSON.stringify(e.details)]);
      const filter = html`<form method="get" action="${path("audit")}" class="export"><label>Operator<input name="operator" value="${query.operator ?? ""}" maxlength="64"></label><label>Action<input name="action" value="${query.action ?? ""}" maxlength="64"></label><button type="submit">Filter</button></form>`;
      return render("Audit log", path("audit"), html`<section>${raw(filter)}</section><section>${raw(table(["At", "Operator", "Action", "Target", "Request", "Details"], rows))}${raw(nextPage(path("audit"), query, rows.length))}</section>`);
    },
    { operatorPage: true, query: t.Object({ operator: t.Optional(t.String({ maxLength: 64 })), action: t.Optional(t.String({ maxLength: 64 })), page: PageField }), detail: { hide: true } },
  )
  .get(
    "/mail",
    async ({ render, read, query }) => {
      const mail = await read(mailList({}, windowOf(query.page)));
      const how = config.mail.smtp
        ? html`<p>Mail is sent through the configured SMTP server.</p>`
        : html`<p class="error">Mail is not configured (SMTP_URL unset): every message is written as a file to ${config.mail.outboxDir} and nobody receives it. Sign-in and claim links are below.</p>`;
      const rows = mail.data.map((m) => [m.createdAt, m.to, m.subject, status(m.status), m.attempts, m.file ?? m.via ?? "", m.error ?? ""]);
      return render("Mail outbox", path("mail"), html`<section>${raw(how)}</section><section>${raw(table(["At", "To", "Subject", "Status", "Attempts", "Where", "Error"], rows))}${raw(nextPage(path("mail"), query, rows.length))}</section>`);
    },
    { operatorPage: true, query: t.Object({ page: PageField }), detail: { hide: true } },
  );
