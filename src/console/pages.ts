// The console's page bodies: what each page shows, from the same services the API uses. Routes
// (routes.ts) handle the session, the forms and the redirects.
import { namesOf } from "../agents/service";
import { balancesView } from "../agents/service";
import { myBets } from "../betting/service";
import { config } from "../config";
import { myContracts } from "../contracts/service";
import { read } from "../db";
import { historyOf } from "../ledger/history";
import { myLoans } from "../lending/service";
import { CURRENCIES } from "../money";
import { listApprovals, policyView, type ApprovalView } from "../owners/service";
import { listSubscriptions } from "../subscriptions/service";
import { deliveriesOf, webhookOf } from "../webhooks/service";
import { amountInWords } from "./format";
import { html, raw, table, type Writer } from "./views";

export const PAGE_SIZE = 20;

const hidden = (csrf: string) => raw(html`<input type="hidden" name="csrf" value="${csrf}">`);
const status = (value: string) => raw(html`<span class="status ${value}">${value}</span>`);

export async function overview(agentId: string, pageNumber: number, w: Writer): Promise<string> {
  const { data, total } = await read(historyOf(agentId, { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE }));
  const balances = await read(balancesView(agentId));
  const names = await read(namesOf(data.map((entry) => entry.counterpartyId)));
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const cards = balances.map(
    (b) => raw(html`<div class="card"><div class="muted">${b.currency}</div><div class="big">${w.money(b.available, b.currency)}</div><div class="muted">held in escrow: ${w.money(b.held, b.currency)}</div></div>`),
  );
  const rows = data.map((e) => [w.when(e.createdAt), e.type.replaceAll("_", " ").toLowerCase(), w.money(e.amount, e.currency), w.who(e.counterpartyId, names), `${e.reference.type} ${e.reference.id}`]);
  const newer = pageNumber > 1 ? raw(html`<a href="/console?page=${pageNumber - 1}">← newer</a>`) : "";
  const older = pageNumber < last ? raw(html`<a href="/console?page=${pageNumber + 1}">older →</a>`) : "";
  return html`<section><h2>Balances</h2><div class="grid">${cards}</div></section>
<section><h2>History</h2>${raw(table(["When", "What", "Amount", "Counterparty", "Reference"], rows, [2]))}
<p>Page ${pageNumber} of ${last} ${newer} ${older}</p></section>`;
}

const KIND_LABEL: Record<string, string> = {
  PAYMENT: "Payment",
  X402: "x402 payment",
  BET: "Open bet",
  BET_ACCEPT: "Accepting a bet",
  LOAN_OFFER: "Loan offer",
  LOAN_BORROW: "Borrowing, owed",
  CONTRACT: "Contract escrow",
  SUBSCRIPTION: "Subscription",
  BOOKING: "Booking",
  WITHDRAWAL: "Withdrawal",
  NEGOTIATION: "Negotiation",
};

/** What the approval would do, in a sentence: "pay 4,800.00 USDC to translator-agent". */
function sentence(item: ApprovalView, w: Writer, names: Map<string, string>) {
  const amount = item.amount === null || item.currency === null ? raw("an offer without an amount") : w.money(item.amount, item.currency);
  const to = item.counterpartyId ? raw(html` to ${w.who(item.counterpartyId, names)}`) : item.kind === "WITHDRAWAL" || item.kind === "X402" ? " to an address outside the service" : " (anyone may take it)";
  return raw(html`${KIND_LABEL[item.kind] ?? item.kind}: ${amount}${to}`);
}

/** Why it waits: the amount against the owner's approval amount, or the negotiation threshold. */
function threshold(item: ApprovalView, approvalAbove: Record<string, number | undefined>, w: Writer) {
  if (item.kind === "NEGOTIATION") return raw(html`above the service's ${w.money(Number(config.negotiationApprovalThreshold), "USD")} threshold for negotiations`);
  const limit = item.currency ? approvalAbove[item.currency] : undefined;
  return limit === undefined ? "above your approval amount when it was made" : raw(html`above your approval amount of ${w.money(limit, item.currency!)}`);
}

/** The request's fields, one per line; an agent's id shows as its name. */
function terms(value: Record<string, unknown>, w: Writer, names: Map<string, string>) {
  const shown = (field: unknown) => {
    if (typeof field === "object" && field !== null) return raw(html`<pre>${JSON.stringify(field, null, 2)}</pre>`);
    if (typeof field === "string" && names.has(field)) return w.who(field, names);
    return String(field);
  };
  const rows = Object.entries(value).map(([key, field]) => raw(html`<dt>${key}</dt><dd>${shown(field)}</dd>`));
  return raw(html`<dl class="terms">${rows}</dl>`);
}

export async function approvalsPage(agentId: string, w: Writer): Promise<string> {
  const { data } = await listApprovals(agentId, {}, { limit: 100, offset: 0 });
  const policy = await read(policyView(agentId));
  const names = new Map<string, string>(data.flatMap((item) => (item.counterpartyId && item.counterpartyName ? [[item.counterpartyId, item.counterpartyName] as [string, string]] : [])));
  const pending = data.filter((item) => item.status === "PENDING");
  const decided = data.filter((item) => item.status !== "PENDING");
  const cards = pending.map(
    (item) => raw(html`<section class="approval" data-id="${item.id}"><h2>${sentence(item, w, names)}</h2>
<p>${threshold(item, policy.approvalAbove, w)}. Asked ${w.when(item.createdAt)}${item.expiresAt ? raw(html`; expires ${w.when(item.expiresAt)} unless you decide`) : ""}.</p>
<p class="muted">Exactly what will be done if you approve:</p>${terms(item.terms, w, names)}
<div class="actions"><a class="button" href="/console/approvals/${item.id}/approve">Approve…</a><a class="button danger" href="/console/approvals/${item.id}/decline">Decline…</a></div></section>`),
  );
  const rows = decided.map((item) => [w.when(item.decidedAt ?? item.createdAt), sentence(item, w, names), status(item.status), item.reason ?? ""]);
  return html`${pending.length ? cards : raw(html`<section><p>Nothing is waiting for you.</p></section>`)}
<section><h2>Decided</h2>${raw(table(["When", "What", "Status", "Why"], rows))}</section>`;
}

/** The confirmation step: the amount again, in words, and the exact terms, before anything happens. */
export function confirmPage(item: ApprovalView, action: "approve" | "decline", csrf: string, w: Writer): string {
  const names = new Map<string, string>(item.counterpartyId && item.counterpartyName ? [[item.counterpartyId, item.counterpartyName]] : []);
  const words = item.amount !== null && item.currency !== null ? amountInWords(item.amount, item.currency) : "no amount";
  const verb = action === "approve" ? "Approve" : "Decline";
  const effect =
    action === "approve"
      ? item.kind === "NEGOTIATION"
        ? "The negotiation becomes ACCEPTED on these terms."
        : "The money moves now, exactly as below, and cannot be called back by the console."
      : item.kind === "NEGOTIATION"
        ? "The negotiation is rejected."
        : "Nothing is sent; the held amount goes back to the agent's balance, and the agent is told you declined.";
  return html`<section class="confirm ${action === "decline" ? "danger" : ""}"><h2>${verb} ${sentence(item, w, names)}?</h2>
<p class="big" id="amount-in-words">${words}</p>
<p>${effect}</p>${terms(item.terms, w, names)}
<form method="post" action="/console/approvals/${item.id}/${action}">${hidden(csrf)}<input type="hidden" name="termsHash" value="${item.termsHash}">
<div class="actions"><button type="submit" class="${action === "decline" ? "danger" : ""}">Yes, ${action} ${words}</button><a class="button plain" href="/console/approvals">Cancel</a></div></form></section>`;
}

export function decidedPage(item: ApprovalView, w: Writer): string {
  const names = new Map<string, string>(item.counterpartyId && item.counterpartyName ? [[item.counterpartyId, item.counterpartyName]] : []);
  const tone = item.status === "APPROVED" || item.status === "DECLINED" ? "ok" : "error";
  return html`<section><p class="${tone}" id="outcome">${sentence(item, w, names)} — ${status(item.status)}</p>${item.reason ? raw(html`<p>${item.reason}</p>`) : ""}
<p><a href="/console/approvals">Back to approvals</a></p></section>`;
}

export async function activity(agentId: string, w: Writer): Promise<string> {
  const all = { limit: 100, offset: 0 };
  const loans = (await myLoans(agentId, {}, all)).data;
  const bets = (await read(myBets(agentId, all))).data;
  const contracts = (await read(myContracts(agentId, all))).data;
  const subscriptions = (await listSubscriptions(agentId, {}, all)).data;
  const names = await read(
    namesOf([
      ...loans.flatMap((l) => [l.lenderId, l.borrowerId]),
      ...bets.flatMap((b) => [b.creatorId, b.acceptorId]),
      ...contracts.flatMap((c) => [c.creatorId, c.counterpartyId]),
      ...subscriptions.flatMap((s) => [s.payerId, s.recipientId]),
    ]),
  );
  const other = (a: string, b: string | null) => (a === agentId ? b : a);
  return html`<section><h2>Loans</h2>${raw(table(["With", "Status", "Principal", "Outstanding", "Due"], loans.map((l) => [w.who(other(l.lenderId, l.borrowerId), names), status(l.status), w.money(l.principal, l.currency), w.money(l.outstanding, l.currency), w.when(l.dueAt)]), [2, 3]))}</section>
<section><h2>Bets</h2>${raw(table(["With", "Status", "Stake", "Condition", "Outcome"], bets.map((b) => [w.who(other(b.creatorId, b.acceptorId), names, "nobody yet"), status(b.status), w.money(b.amount, b.currency), b.condition, b.outcome ?? ""]), [2]))}</section>
<section><h2>Contracts</h2>${raw(table(["With", "Status", "Title", "Escrow"], contracts.map((c) => [w.who(other(c.creatorId, c.counterpartyId), names), status(c.status), c.title, w.money(c.escrowAmount, c.currency)]), [3]))}</section>
<section><h2>Subscriptions</h2>${raw(table(["With", "Status", "Amount", "Every", "Next charge"], subscriptions.map((s) => [w.who(other(s.payerId, s.recipientId), names), status(s.status), w.money(s.amount, s.currency), s.frequency.toLowerCase(), w.when(s.nextChargeAt)]), [2]))}</section>`;
}

export const POLICY_PARTS = [
  ["perTransaction", "Most per outflow"],
  ["daily", "Most per 24 h"],
  ["approvalAbove", "Ask me above"],
] as const;

export async function policyPage(agentId: string, csrf: string, w: Writer, message?: { ok: boolean; text: string }): Promise<string> {
  const policy = await read(policyView(agentId));
  const allowNames = await read(namesOf(policy.allowlist ?? []));
  const rows = CURRENCIES.map((currency) => [
    currency,
    ...POLICY_PARTS.map(([part, label]) =>
      raw(html`<input name="${part}.${currency}" inputmode="decimal" aria-label="${label} (${currency})" value="${policy[part][currency] ?? ""}" placeholder="no limit">`),
    ),
    policy.spentLast24h[currency] !== undefined ? w.money(policy.spentLast24h[currency]!, currency) : "",
  ]);
  const listed = (policy.allowlist ?? []).map((id) => raw(html`<li>${w.who(id, allowNames)}</li>`));
  return html`${message ? raw(html`<p class="${message.ok ? "ok" : "error"}" id="policy-message">${message.text}</p>`) : ""}
<form method="post" action="/console/policy">${hidden(csrf)}
<section><h2>Limits per currency</h2><p class="muted">Empty means no limit of that kind. The reputation tier's limit applies too; an outflow must pass both.</p>
${raw(table(["Currency", ...POLICY_PARTS.map(([, label]) => label), "Out in the last 24 h"], rows))}</section>
<section><h2>Who the agent may pay</h2><p class="muted">One agent id per line. Empty: anyone. With a list, open bets, loan offers and payments to outside addresses are refused.</p>
${listed.length ? raw(html`<ul>${listed}</ul>`) : ""}
<textarea name="allowlist" rows="4" aria-label="allowlist">${(policy.allowlist ?? []).join("\n")}</textarea></section>
<div class="actions"><button type="submit">Save the policy</button></div></form>`;
}

export async function webhooksPage(agentId: string, csrf: string, w: Writer, shownSecret?: string): Promise<string> {
  const hook = await read(webhookOf(agentId));
  const { data } = await read(deliveriesOf(agentId, { limit: 50, offset: 0 }));
  const rows = data.map((d) => [
    w.when(d.createdAt),
    d.event,
    status(d.outcome),
    d.httpStatus ?? "",
    d.error ?? "",
    d.outcome === "DELIVERED" ? "" : raw(html`<form class="inline" method="post" action="/console/webhooks/${d.id}/resend">${hidden(csrf)}<button type="submit" class="plain">Send again</button></form>`),
  ]);
  const secret = shownSecret
    ? raw(html`<p class="ok">A new signing secret is in force. Store it now: it is not shown again. The old one no longer verifies.</p><p class="key" id="new-secret">${shownSecret}</p>`)
    : hook.url
      ? raw(html`<div class="actions"><a class="button plain" href="/console/webhooks/rotate">Rotate the signing secret…</a></div>`)
      : "";
  return html`<section><h2>Where events go</h2><p>${hook.url ?? raw(html`<span class="muted">No webhook URL: events land only in the inbox.</span>`)}</p>${secret}</section>
<section><h2>Latest deliveries</h2><p class="muted">A failed delivery is not retried on its own; send it again here once the receiver is fixed.</p>${raw(table(["When", "Event", "Outcome", "Status", "Error", ""], rows))}</section>`;
}

export function keysPage(): string {
  return html`<section><h2>The agent's API key</h2><p>Rotating replaces the agent's API key at once: the old key stops working. The new key is shown once.</p>
<div class="actions"><a class="button danger" href="/console/security/rotate">Rotate the API key…</a></div></section>
<section><h2>Your owner key</h2><p>Replacing your owner key (po_…) ends the old one at once, and every console session signed in with it, this one too. The new key is shown once; sign in with it.</p>
<div class="actions"><a class="button danger" href="/console/security/owner-key">Replace the owner key…</a></div></section>`;
}

const ROTATIONS = {
  key: {
    action: "/console/rotate",
    text: "The agent's API key is replaced at once: the key it uses now stops working, and the new key is shown here once.",
    button: "Yes, replace the API key",
    cancel: "/console/security",
  },
  "owner-key": {
    action: "/console/security/owner-key",
    text: "Your owner key is replaced at once: the key you signed in with stops working, every console session signed in with it ends (this one too), and the new key is shown here once.",
    button: "Yes, replace the owner key",
    cancel: "/console/security",
  },
  secret: {
    action: "/console/webhooks/rotate",
    text: "Deliveries are signed with a new secret from now on: the receiver must be given it, or it will reject them. It is shown here once.",
    button: "Yes, replace the signing secret",
    cancel: "/console/webhooks",
  },
};

export function confirmRotation(what: keyof typeof ROTATIONS, csrf: string): string {
  const { action, text, button, cancel } = ROTATIONS[what];
  return html`<section class="confirm danger"><p>${text}</p><form method="post" action="${action}">${hidden(csrf)}
<div class="actions"><button type="submit" class="danger">${button}</button><a class="button plain" href="${cancel}">Cancel</a></div></form></section>`;
}
