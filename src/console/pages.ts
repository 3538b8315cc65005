// The console's page bodies: what each page shows, from the same services the API uses. Routes
// (routes.ts) handle the session, the forms and the redirects.
import { namesOf } from "../agents/service";
import { balancesView } from "../wallets/balances";
import { expireDueBets, myBets } from "../betting/service";
import { clock } from "../clock";
import { config } from "../config";
import { applyDueDeadlines, myContracts } from "../contracts/service";
import { read } from "../db";
import { expireDueOffersOf, openOffersOf } from "../lending/offers";
import { defaultDueLoans, myLoans } from "../lending/service";
import { listBookings } from "../marketplace/bookings";
import { CURRENCIES } from "../money";
import { expireDueApprovals } from "../owners/decisions";
import { approvalQueue, policyView, type ApprovalView } from "../owners/service";
import { chargeDueOf, listSubscriptions } from "../subscriptions/service";
import { deliveriesOf, webhookOf } from "../webhooks/service";
import type { StoppableKind } from "./brakes";
import { CSV_LIMITS } from "./csv";
import { amountInWords, formatAmount } from "./format";
import { operationsOf, type Operation } from "./history";
import { approvalSentence, outcomeWords } from "./sentences";
import { csrfField, html, raw, table, type Writer } from "./views";
import { statusTag as status, STEP_WORDS } from "./words";
import { type AgentId } from "../ids";

export const PAGE_SIZE = 20;

/** "Paid “annual data licence”", then in small print how it went: approved by you, what was set aside and paid out. */
function whatHappened(op: Operation) {
  const notes = [
    ...(op.keyName !== null ? [`by key “${op.keyName}”`] : []),
    ...(op.approved ? ["held for your approval; you approved it"] : []),
    ...(op.legs.length > 1 ? [op.legs.map((leg) => `${STEP_WORDS[leg.type] ?? leg.type.toLowerCase().replaceAll("_", " ")} ${formatAmount(Math.abs(leg.amount), op.currency, "en")}`).join(" · ")] : []),
  ];
  return raw(html`<strong>${op.what}</strong>${op.reason ? raw(html` <span class="reason">“${op.reason}”</span>`) : ""}${notes.length ? raw(html`<div class="muted legs">${notes.join("; ")}</div>`) : ""}`);
}
/** Balance cards for the currencies with money in them; the empty ones on one line ("USDT, BTC: 0"). */
function balanceCards(balances: { currency: string; available: number; held: number }[], w: Writer) {
  const used = balances.filter((b) => b.available !== 0 || b.held !== 0);
  const empty = balances.filter((b) => b.available === 0 && b.held === 0).map((b) => b.currency);
  const cards = used.map(
    (b) =>
      raw(html`<div class="card"><div class="muted">${b.currency}</div><div class="big">${w.money(b.available, b.currency)}</div>${b.held ? raw(html`<div class="muted">and ${w.money(b.held, b.currency)} set aside until it is paid out or given back</div>`) : ""}</div>`),
  );
  return html`${cards.length ? raw(html`<div class="grid">${cards}</div>`) : ""}${empty.length ? raw(html`<p class="muted empty-currencies" id="empty-currencies">${empty.join(", ")}: 0</p>`) : ""}`;
}

/** The small form that downloads the history as CSV (a POST: it carries the session's CSRF token like every form). */
function exportForm(csrf: string, today: string) {
  const options = CURRENCIES.map((currency) => raw(html`<option value="${currency}">${currency}</option>`));
  return html`<form class="export" method="post" action="/console/history.csv">${csrfField(csrf)}
<label>From<input type="date" name="from" value="${today.slice(0, 8)}01" required></label><label>To<input type="date" name="to" value="${today}" required></label>
<label>Currency<select name="currency"><option value="">all</option>${options}</select></label><button type="submit" class="plain">Download CSV</button></form>
<p class="muted">At most ${CSV_LIMITS.days} days and ${CSV_LIMITS.rows.toLocaleString("en")} operations per file.</p>`;
}

/** On the Overview while something waits for the owner: how many, the soonest expiry, the way to Approvals. */
async function waitingBanner(agentId: AgentId, w: Writer): Promise<string> {
  await expireDueApprovals(agentId);
  const { data, pending } = await read(approvalQueue(agentId, { status: "PENDING" }, { limit: 100, offset: 0 }), true);
  if (pending === 0) return "";
  const soonest = data.flatMap((item) => (item.expiresAt ? [item.expiresAt] : [])).sort()[0];
  return html`<section class="waiting" id="waiting-banner" role="status"><strong>${pending === 1 ? "1 request waits" : `${pending} requests wait`} for your approval</strong>${soonest ? raw(html`; the soonest expires ${w.when(soonest)} unless you decide`) : ""}.
<div class="actions"><a class="button" href="/console/approvals">Open Approvals</a></div></section>`;
}

export async function overview(agentId: AgentId, pageNumber: number, csrf: string, w: Writer): Promise<string> {
  const { data, more } = await read(operationsOf(agentId, {}, PAGE_SIZE, (pageNumber - 1) * PAGE_SIZE));
  const balances = await read(balancesView(agentId));
  const names = await read(namesOf(data.map((op) => op.counterpartyId)));
  const other = (op: Operation) => (op.counterpartyId === null && op.address !== null ? w.address(op.address) : w.who(op.counterpartyId, names));
  const rows = data.map((op) => [w.when(op.at), whatHappened(op), w.money(op.amount, op.currency), other(op)]);
  const newer = pageNumber > 1 ? raw(html`<a href="/console?page=${pageNumber - 1}">← newer</a>`) : "";
  const older = more ? raw(html`<a href="/console?page=${pageNumber + 1}">older →</a>`) : "";
  return html`${raw(await waitingBanner(agentId, w))}<section><h2>Balances</h2>${raw(balanceCards(balances, w))}</section>
<section><h2>History</h2>${raw(table(["When", "What", "Amount", "With"], rows, [2]))}
<p>Page ${pageNumber} ${newer} ${older}</p></section>
<section><h2>Export</h2>${raw(exportForm(csrf, new Date(clock.nowMs()).toISOString().slice(0, 10)))}</section>`;
}

/** Why it waits: the amount against the owner's approval amount, or the negotiation threshold. */
function threshold(item: ApprovalView, approvalAbove: Record<string, number | undefined>, w: Writer) {
  if (item.kind === "NEGOTIATION") return raw(html`It is above the service's ${w.money(Number(config.negotiationApprovalThreshold), "USD")} threshold for negotiations`);
  const limit = item.currency ? approvalAbove[item.currency] : undefined;
  return limit === undefined ? "It was above your approval amount when it was made" : raw(html`It is above your approval amount of ${w.money(limit, item.currency!)}`);
}

/** The request's fields, one per line (an agent's id shows as its name), folded away: the sentence says it in words. */
function terms(value: Record<string, unknown>, w: Writer, names: Map<string, string>) {
  const shown = (field: unknown) => {
    if (typeof field === "object" && field !== null) return raw(html`<pre>${JSON.stringify(field, null, 2)}</pre>`);
    if (typeof field === "string" && names.has(field)) return w.who(field, names);
    return String(field);
  };
  const rows = Object.entries(value).map(([key, field]) => raw(html`<dt>${key}</dt><dd>${shown(field)}</dd>`));
  return raw(html`<details class="terms"><summary>The exact request</summary><dl class="terms">${rows}</dl></details>`);
}

const namesIn = (items: ApprovalView[]) =>
  new Map<string, string>(items.flatMap((item) => (item.counterpartyId && item.counterpartyName ? [[item.counterpartyId, item.counterpartyName] as [string, string]] : [])));

export async function approvalsPage(agentId: AgentId, w: Writer): Promise<string> {
  await expireDueApprovals(agentId);
  const { data } = await read(approvalQueue(agentId, {}, { limit: 100, offset: 0 }), true);
  const policy = await read(policyView(agentId));
  const names = namesIn(data);
  const pending = data.filter((item) => item.status === "PENDING");
  const decided = data.filter((item) => item.status !== "PENDING");
  const cards = pending.map(
    (item) => raw(html`<section class="approval" data-id="${item.id}"><h2 class="sentence">${approvalSentence(item, w, names)}</h2>
<p>${threshold(item, policy.approvalAbove, w)}. Asked ${w.when(item.createdAt)}${item.expiresAt ? raw(html`; expires ${w.when(item.expiresAt)} unless you decide`) : ""}.</p>
${terms(item.terms, w, names)}
<div class="actions"><a class="button" href="/console/approvals/${item.id}/approve">Approve…</a><a class="button danger" href="/console/approvals/${item.id}/decline">Decline…</a></div></section>`),
  );
  const rows = decided.map((item) => [w.when(item.decidedAt ?? item.createdAt), approvalSentence(item, w, names), raw(html`<span class="outcome ${item.status}">${outcomeWords(item)}</span>`)]);
  return html`${pending.length ? cards : raw(html`<section><p>Nothing is waiting for you.</p></section>`)}
<section><h2>Decided</h2>${raw(table(["When", "What", "Outcome"], rows))}</section>`;
}

/** The confirmation step: the amount again, in words, and the exact terms, before anything happens. */
export function confirmPage(item: ApprovalView, action: "approve" | "decline", csrf: string, w: Writer): string {
  const names = namesIn([item]);
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
  return html`<section class="confirm ${action === "decline" ? "danger" : ""}"><h2>${verb}? ${approvalSentence(item, w, names)}</h2>
<p class="big" id="amount-in-words">${words}</p>
<p>${effect}</p>${terms(item.terms, w, names)}
<form method="post" action="/console/approvals/${item.id}/${action}">${csrfField(csrf)}<input type="hidden" name="termsHash" value="${item.termsHash}">
<div class="actions"><button type="submit" class="${action === "decline" ? "danger" : ""}">Yes, ${action} ${words}</button><a class="button plain" href="/console/approvals">Cancel</a></div></form></section>`;
}

/** One held item with both decisions on it (what a mail's link opens): a tap on either decides, the page repeats the amount in words. */
export function decisionPage(item: ApprovalView, csrf: string, w: Writer): string {
  const names = namesIn([item]);
  const words = item.amount !== null && item.currency !== null ? amountInWords(item.amount, item.currency) : "no amount";
  const decide = (action: "approve" | "decline", label: string, tone: string) =>
    raw(html`<form class="inline" method="post" action="/console/approvals/${item.id}/${action}">${csrfField(csrf)}<input type="hidden" name="termsHash" value="${item.termsHash}"><button type="submit" class="${tone}">${label}</button></form>`);
  return html`<section class="confirm" id="approval"><h2>${approvalSentence(item, w, names)}</h2>
<p class="big" id="amount-in-words">${words}</p>
<p>Waiting for you${item.expiresAt ? raw(html` until ${w.when(item.expiresAt)}`) : ""}. Approving makes it now, exactly as below; declining gives the money back to the agent.</p>${terms(item.terms, w, names)}
<div class="actions">${decide("approve", `Approve ${words}`, "")}${decide("decline", "Decline", "danger")}</div></section>`;
}

export function decidedPage(item: ApprovalView, w: Writer): string {
  const tone = item.status === "APPROVED" || item.status === "DECLINED" ? "ok" : "error";
  return html`<section><p class="${tone}" id="outcome">${outcomeWords(item)}: ${approvalSentence(item, w, namesIn([item]))}.</p>
<p><a href="/console/approvals">Back to approvals</a></p></section>`;
}

/** A settled bet's winner ("you", the other party's name), or its state while it runs. */
function betOutcome(bet: { status: string; winnerId?: AgentId | null; outcome?: string | null }, agentId: AgentId, w: Writer, names: Map<string, string>) {
  if (!bet.winnerId) return bet.outcome ?? "";
  return bet.winnerId === agentId ? raw(html`<strong>You won</strong>`) : raw(html`${w.name(bet.winnerId, names)} won`);
}

/** A link to the confirmation of stopping one item (brakes.ts): cancel a subscription, withdraw an offer or a bet. */
const stop = (kind: StoppableKind, id: string, label: string) => raw(html`<a class="button plain" href="/console/activity/${kind}/${id}">${label}…</a>`);

export async function activity(agentId: AgentId, w: Writer): Promise<string> {
  const all = { limit: 100, offset: 0 };
  await Promise.all([defaultDueLoans(agentId), expireDueOffersOf(agentId), expireDueBets(agentId), applyDueDeadlines(agentId), chargeDueOf(agentId)]);
  const loans = (await read(myLoans(agentId, {}, all))).data;
  const offers = (await read(openOffersOf(agentId, all))).data;
  const bets = (await read(myBets(agentId, all))).data;
  const contracts = (await read(myContracts(agentId, all))).data;
  const subscriptions = (await read(listSubscriptions(agentId, {}, all))).data;
  const bookings = (await read(listBookings(agentId, {}, all))).data;
  const names = await read(
    namesOf([
      ...loans.flatMap((l) => [l.lenderId, l.borrowerId]),
      ...bets.flatMap((b) => [b.creatorId, b.acceptorId]),
      ...contracts.flatMap((c) => [c.creatorId, c.counterpartyId]),
      ...subscriptions.flatMap((s) => [s.payerId, s.recipientId]),
      ...bookings.flatMap((b) => [b.agentId, b.providerId]),
    ]),
  );
  const other = (a: string, b: string | null) => (a === agentId ? b : a);
  const offerRows = offers.map((o) => [w.money(o.amount, o.currency), `${o.interestRate} %`, `${o.durationDays} days`, w.when(o.expiresAt), stop("offer", o.id, "Withdraw")]);
  const betAction = (b: (typeof bets)[number]) => (b.creatorId === agentId && b.status === "OPEN" ? stop("bet", b.id, "Withdraw") : "");
  const subscriptionAction = (s: (typeof subscriptions)[number]) => (s.payerId === agentId && s.status !== "CANCELLED" ? stop("subscription", s.id, "Cancel") : "");
  return html`<section><h2>Loans</h2>${raw(table(["With", "Status", "Principal", "Outstanding", "Due"], loans.map((l) => [w.who(other(l.lenderId, l.borrowerId), names), status(l.status), w.money(l.principal, l.currency), w.money(l.outstanding, l.currency), w.when(l.dueAt)]), [2, 3]))}</section>
<section><h2>Open loan offers</h2>${raw(table(["Amount", "Interest", "Term", "Expires", ""], offerRows, [0]))}</section>
<section><h2>Bets</h2>${raw(table(["With", "Status", "Stake", "Condition", "Result", ""], bets.map((b) => [w.who(other(b.creatorId, b.acceptorId), names, "nobody yet"), status(b.status), w.money(b.amount, b.currency), b.condition, betOutcome(b, agentId, w, names), betAction(b)]), [2]))}</section>
<section><h2>Bookings</h2>${raw(table(["When", "Role", "With", "Status", "Amount"], bookings.map((b) => [w.when(b.createdAt), b.agentId === agentId ? "you booked" : "booked from you", w.who(other(b.agentId, b.providerId), names), status(b.status), w.money(b.amount, b.currency)]), [4]))}</section>
<section><h2>Contracts</h2>${raw(table(["With", "Status", "Title", "Amount"], contracts.map((c) => [w.who(other(c.creatorId, c.counterpartyId), names), status(c.status), c.title, w.money(c.escrowAmount, c.currency)]), [3]))}</section>
<section><h2>Subscriptions</h2>${raw(table(["With", "Status", "Amount", "Every", "Next charge", ""], subscriptions.map((s) => [w.who(other(s.payerId, s.recipientId), names), status(s.status), w.money(s.amount, s.currency), s.frequency.toLowerCase(), w.when(s.nextChargeAt), subscriptionAction(s)]), [2]))}</section>`;
}

export async function webhooksPage(agentId: AgentId, csrf: string, w: Writer, shownSecret?: string): Promise<string> {
  const hook = await read(webhookOf(agentId));
  const { data } = await read(deliveriesOf(agentId, { limit: 50, offset: 0 }));
  const rows = data.map((d) => [
    w.when(d.createdAt),
    d.event,
    status(d.outcome),
    d.httpStatus ?? "",
    d.error ?? "",
    d.outcome === "DELIVERED" ? "" : raw(html`<form class="inline" method="post" action="/console/webhooks/${d.id}/resend">${csrfField(csrf)}<button type="submit" class="plain">Send again</button></form>`),
  ]);
  const secret = shownSecret
    ? raw(html`<p class="ok">A new signing secret is in force. Store it now: it is not shown again. The old one no longer verifies.</p><p class="key" id="new-secret">${shownSecret}</p>`)
    : hook.url
      ? raw(html`<div class="actions"><a class="button plain" href="/console/webhooks/rotate">Rotate the signing secret…</a></div>`)
      : "";
  return html`<section><h2>Where events go</h2><p>${hook.url ?? raw(html`<span class="muted">No webhook URL: events land only in the inbox.</span>`)}</p>${secret}</section>
<section><h2>Latest deliveries</h2><p class="muted">A failed delivery is not retried on its own; send it again here once the receiver is fixed.</p>${raw(table(["When", "Event", "Outcome", "Status", "Error", ""], rows))}</section>`;
}

const KEEP = "Keep the restricted keys the old key made (a thief who had it keeps them too)";
const ROTATIONS = {
  key: {
    action: "/console/rotate",
    text: "The agent's API key is replaced at once: the key it uses now stops working, and so does every restricted key it made. The new key is shown here once.",
    button: "Yes, replace the API key",
    cancel: "/console/security",
    keep: KEEP,
  },
  "owner-key": {
    action: "/console/security/owner-key",
    text: "Your owner key is replaced at once: the key you signed in with stops working, every console session signed in with it ends (this one too), and so does every restricted key and MCP host it made. The new key is shown here once.",
    button: "Yes, replace the owner key",
    cancel: "/console/security",
    keep: KEEP,
  },
  secret: {
    action: "/console/webhooks/rotate",
    text: "Deliveries are signed with a new secret from now on: the receiver must be given it, or it will reject them. It is shown here once.",
    button: "Yes, replace the signing secret",
    cancel: "/console/webhooks",
    keep: null,
  },
  "owner-secret": {
    action: "/console/notifications/rotate",
    text: "Notices to your webhook are signed with a new secret from now on: the receiver must be given it, or it will reject them. It is shown here once.",
    button: "Yes, replace the signing secret",
    cancel: "/console/notifications",
    keep: null,
  },
};

export function confirmRotation(what: keyof typeof ROTATIONS, csrf: string): string {
  const { action, text, button, cancel, keep } = ROTATIONS[what];
  const keeping = keep ? raw(html`<label><input type="checkbox" name="keepRestrictedKeys" value="on"> ${keep}</label>`) : "";
  return html`<section class="confirm danger"><p>${text}</p><form method="post" action="${action}">${csrfField(csrf)}${keeping}
<div class="actions"><button type="submit" class="danger">${button}</button><a class="button plain" href="${cancel}">Cancel</a></div></form></section>`;
}
