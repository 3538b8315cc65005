// Server-rendered pages of the owner console: plain HTML, a small stylesheet that turns every table into
// cards on a phone (no horizontal scrolling), and a few lines of script for what only the browser knows
// (the viewer's time zone) and for copying ids. Every value is escaped unless it is already rendered.
import { formatAmount, localeOf, timeTag, usdHint } from "./format";
import { type AgentId } from "../ids";

const escape = (value: unknown) =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export const html = (strings: TemplateStringsArray, ...values: unknown[]) =>
  strings.reduce((out, part, index) => out + part + (index < values.length ? toHtml(values[index]) : ""), "");

/** Values are escaped unless they are already rendered HTML (a Raw). */
class Raw {
  constructor(readonly value: string) {}
}
export const raw = (value: string) => new Raw(value);
/** A status word as a coloured badge (DELIVERED, FAILED, …). */
export const status = (value: string) => raw(html`<span class="status ${value}">${value}</span>`);
/** The hidden field that carries the session's CSRF token in every form. */
export const csrfField = (csrf: string) => raw(html`<input type="hidden" name="csrf" value="${csrf}">`);
function toHtml(value: unknown): string {
  if (value instanceof Raw) return value.value;
  if (Array.isArray(value)) return value.map(toHtml).join("");
  return escape(value);
}

const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,sans-serif;margin:0;color:#1d2330;background:#f5f6f8;line-height:1.4}
header{background:#1d2330;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#cfe0ff;text-decoration:none;white-space:nowrap}header a[aria-current]{color:#fff;font-weight:600}
header .who{margin-right:auto;font-weight:600}header .who small{display:block;font-weight:400;color:#aab4c8;font-size:.75rem}
.badge{background:#e5484d;color:#fff;border-radius:999px;padding:0 .45rem;font-size:.8rem;margin-left:.25rem}
main{max-width:960px;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}h2{font-size:1.1rem;margin:0 0 .5rem}
section{background:#fff;border-radius:8px;padding:1rem;margin-bottom:1rem;box-shadow:0 1px 2px #0001}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
td.num,th.num{text-align:right;white-space:nowrap}
.amount{font-variant-numeric:tabular-nums;white-space:nowrap}.usd{color:#5b6478;font-size:.85em;white-space:nowrap}
.big{font-size:1.6rem;font-weight:600}.big .usd{display:block;font-size:.55em;font-weight:400}
.card .amount{white-space:normal;overflow-wrap:anywhere}.card .big{font-size:clamp(1.1rem,2.2vw + .5rem,1.6rem)}
.reason{font-style:italic}.legs{font-size:.8rem}.empty-currencies{margin:.75rem 0 0}
[aria-invalid=true]{border-color:#b00020;background:#fff5f5}.field-error{color:#b00020;font-size:.85rem;margin:-.5rem 0 .75rem}
.checks{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,200px),1fr));gap:.25rem .75rem}
.checks input{width:auto;margin:0 .4rem 0 0}
form.export{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}form.export label{flex:1 1 8rem}form.export input,form.export select{margin-bottom:0}
details summary{cursor:pointer;color:#2456d6}fieldset.plain{border:0;padding:0;margin:0 0 .5rem}
.name{border-bottom:1px dotted #8a93a6;cursor:help}
button.copy{background:none;border:0;color:#5b6478;padding:0 .25rem;font-size:.7rem;cursor:pointer;text-decoration:underline}
pre{background:#f0f2f5;padding:.5rem;border-radius:6px;white-space:pre-wrap;word-break:break-word;margin:.25rem 0}
dl.terms{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .75rem;margin:.5rem 0}dl.terms dt{color:#5b6478}dl.terms dd{margin:0;word-break:break-word}
button,.button{background:#2456d6;color:#fff;border:0;border-radius:6px;padding:.55rem 1rem;font-size:1rem;cursor:pointer;text-decoration:none;display:inline-block}
button.danger,.button.danger{background:#c4372f}.button.plain,button.plain{background:#e8ebf1;color:#1d2330}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
input,textarea,select{font-size:1rem;padding:.5rem;width:100%;margin:.25rem 0 .75rem;border:1px solid #c9cfdb;border-radius:6px;font-family:inherit}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,180px),1fr));gap:.75rem}
.card{border:1px solid #e3e6ec;border-radius:8px;padding:.75rem;min-width:0;overflow-wrap:anywhere}
.status{font-size:.8rem;font-weight:600;border-radius:4px;padding:.05rem .4rem;background:#e8ebf1}
.status.PENDING,.status.QUEUED{background:#fff1c2}.status.APPROVED,.status.DELIVERED,.status.ACTIVE{background:#d6f5df}.status.DECLINED,.status.FAILED,.status.EXPIRED,.status.REVOKED,.status.TIMEOUT,.status.REFUSED{background:#fde0de}
.error{color:#b00020}.ok{color:#0a7a36}.muted{color:#5b6478}
.key{font-family:monospace;word-break:break-all;background:#fff6d6;padding:.5rem;border-radius:6px}
.confirm{border:2px solid #2456d6}.confirm.danger{border-color:#c4372f}
.frozen{border:2px solid #c4372f;background:#fff5f5}.waiting{border:2px solid #d99a00;background:#fffaeb}
.id,.address{font-family:monospace;font-size:.85em;overflow-wrap:anywhere}header a.brake{color:#ffb4ae;font-weight:600}
form.inline{display:inline}
@media (max-width:640px){
  table.cards thead{display:none}
  table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
  table.cards tr{border:1px solid #e3e6ec;border-radius:8px;margin-bottom:.6rem;padding:.3rem .2rem}
  table.cards td{border:0;padding:.2rem .5rem;text-align:right;overflow-wrap:anywhere}
  table.cards td::before{content:attr(data-label);float:left;margin-right:.75rem;color:#5b6478;text-align:left}
  table.cards td::after{content:"";display:block;clear:both}
  table.cards td.num{white-space:normal}table.cards td:empty{display:none}
  .amounts table.cards td::before{max-width:56%}.amounts table.cards td input,.amounts table.cards td select{width:42%;margin:.1rem 0}.amounts table.cards td select{width:62%}
  .big{font-size:1.3rem}
}`;

// The viewer's own time zone and language for every <time>; a copy button for every id.
const SCRIPT = `
for (const t of document.querySelectorAll("time[datetime]")) {
  const d = new Date(t.getAttribute("datetime"));
  if (!isNaN(d)) { t.title = t.getAttribute("datetime"); t.textContent = d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }); }
}
for (const b of document.querySelectorAll("button.copy[data-copy]")) {
  b.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(b.dataset.copy).then(() => { b.textContent = "copied"; }));
}`;

/**
 * `others`: the owner account's other agents, to switch to (none when signed in with one agent's owner
 * key); `banner`: shown above every page's body (the frozen agent's); `canFreeze`: the header offers the
 * owner's freeze.
 */
export type Shell = { title: string; agentName: string; agentId: AgentId; pending: number; csrf: string; current: string; others: { id: string; name: string }[]; banner: string; canFreeze: boolean };

const NAV: [string, string][] = [
  ["/console", "Overview"],
  ["/console/approvals", "Approvals"],
  ["/console/activity", "Activity"],
  ["/console/policy", "Policy"],
  ["/console/webhooks", "Webhooks"],
  ["/console/notifications", "Notifications"],
  ["/console/security", "Keys"],
];

/** A page of the signed-in console: the agent's name, the navigation with the pending count, the body. */
export function layout(shell: Shell, body: string): string {
  const links = NAV.map(([href, label]) =>
    raw(
      html`<a href="${href}"${raw(shell.current === href ? ' aria-current="page"' : "")}>${label}${label === "Approvals" && shell.pending > 0 ? raw(html`<span class="badge" id="pending-count" aria-label="${shell.pending} waiting">${shell.pending}</span>`) : ""}</a>`,
    ),
  );
  const switcher = shell.others.map(
    (agent) => raw(html`<form class="inline" method="post" action="/console/agents/${agent.id}/show">${csrfField(shell.csrf)}<button type="submit" class="plain">${agent.name}</button></form>`),
  );
  const brake = shell.canFreeze ? raw(html`<a class="brake" href="/console/freeze"${raw(shell.current === "/console/freeze" ? ' aria-current="page"' : "")}>Freeze…</a>`) : "";
  const header = html`<span class="who">${shell.agentName}<small>owner console${shell.others.length ? raw(html` · your other agents: ${switcher}`) : ""}</small></span>${links}${brake}
<form class="inline" method="post" action="/console/logout">${csrfField(shell.csrf)}<button type="submit" class="plain">Sign out</button></form>`;
  return document(shell.title, header, shell.banner + body);
}

/** A page before sign-in (or a refusal): no navigation. */
export function bare(title: string, body: string): string {
  return document(title, html`<span class="who">agentbank console</span>`, body);
}

/** A whole page: its header (rendered) above the title and body; the operator console's pages too. */
export function document(title: string, header: string, body: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · agentbank</title><style>${raw(STYLE)}</style></head>
<body><header>${raw(header)}</header><main><h1>${title}</h1>${raw(body)}</main><script>${raw(SCRIPT)}</script></body></html>`;
}

/** A table on a wide screen, a list of cards on a phone (each cell labelled with its column). */
export function table(headers: string[], rows: unknown[][], numeric: number[] = []): string {
  if (rows.length === 0) return html`<p class="muted">Nothing here yet.</p>`;
  const cls = (index: number) => (numeric.includes(index) ? ' class="num"' : "");
  return html`<table class="cards"><thead><tr>${headers.map((h, i) => raw(html`<th${raw(cls(i))}>${h}</th>`))}</tr></thead><tbody>${rows.map(
    (row) => raw(html`<tr>${row.map((cell, i) => raw(html`<td data-label="${headers[i]}"${raw(cls(i))}>${cell}</td>`))}</tr>`),
  )}</tbody></table>`;
}

/** What a page needs to write amounts, times and names for its viewer. */
export type Writer = {
  money: (amount: number, currency: string) => Raw;
  when: (iso: string | null | undefined) => Raw;
  who: (id: string | null | undefined, names: Map<string, string>, fallback?: string) => Raw;
  /** An amount in a sentence: no USD value beside it. */
  plain: (amount: number, currency: string) => Raw;
  /** A name in a sentence: the id on hover, no copy button. */
  name: (id: string, names: Map<string, string>) => Raw;
  /** An address outside the service: its start and end, the whole of it on hover and copied by a button. */
  address: (address: string) => Raw;
};

const shortName = (id: string, names: Map<string, string>) => names.get(id) ?? `${id.slice(0, 8)}…`;

export function writerFor(request: Request): Writer {
  const locale = localeOf(request);
  return {
    money: (amount, currency) => {
      const hint = usdHint(amount, currency, locale);
      return raw(html`<span class="amount">${formatAmount(amount, currency, locale)}</span>${hint ? raw(html` <span class="usd">${hint}</span>`) : ""}`);
    },
    when: (iso) => raw(timeTag(iso)),
    // A name, with its id on hover and a button that copies it.
    who: (id, names, fallback = "—") => {
      if (!id) return raw(html`<span class="muted">${fallback}</span>`);
      const name = shortName(id, names);
      return raw(html`<span class="name" title="${id}">${name}</span><button type="button" class="copy" data-copy="${id}" aria-label="copy the id of ${name}">copy id</button>`);
    },
    plain: (amount, currency) => raw(html`<span class="amount">${formatAmount(amount, currency, locale)}</span>`),
    name: (id, names) => raw(html`<span class="name" title="${id}">${shortName(id, names)}</span>`),
    address: (address) =>
      raw(html`<span class="address" title="${address}">${address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address}</span><button type="button" class="copy" data-copy="${address}" aria-label="copy the address">copy</button>`),
  };
}

export const page = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-frame-options": "DENY", ...headers } });
