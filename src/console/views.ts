// Server-rendered pages of the owner console: plain HTML and a little CSS, readable on a phone.
const escape = (value: unknown) =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export const html = (strings: TemplateStringsArray, ...values: unknown[]) =>
  strings.reduce((out, part, index) => out + part + (index < values.length ? toHtml(values[index]) : ""), "");

/** Values are escaped unless they are already rendered HTML (a Raw). */
class Raw {
  constructor(readonly value: string) {}
}
export const raw = (value: string) => new Raw(value);
function toHtml(value: unknown): string {
  if (value instanceof Raw) return value.value;
  if (Array.isArray(value)) return value.map(toHtml).join("");
  return escape(value);
}

const STYLE = `
body{font-family:system-ui,-apple-system,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header strong{margin-right:auto}
main{max-width:960px;margin:0 auto;padding:1rem}
section{background:#fff;border-radius:8px;padding:1rem;margin-bottom:1rem;box-shadow:0 1px 2px #0001;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #eee;white-space:nowrap}
pre{background:#f0f2f5;padding:.5rem;border-radius:6px;white-space:pre-wrap;word-break:break-all}
button{background:#2456d6;color:#fff;border:0;border-radius:6px;padding:.5rem 1rem;font-size:1rem}
input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box;margin:.5rem 0}
.error{color:#b00020}.ok{color:#0a7a36}.key{font-family:monospace;word-break:break-all;background:#fff6d6;padding:.5rem}
form.inline{display:inline}`;

export function layout(title: string, body: string, nav: boolean, csrf?: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · agentbank</title><style>${raw(STYLE)}</style></head>
<body><header><strong>agentbank console</strong>${
    nav
      ? raw(html`<a href="/console">Overview</a><a href="/console/approvals">Approvals</a><a href="/console/activity">Activity</a><a href="/console/webhooks">Webhooks</a><a href="/console/security">API key</a>
<form class="inline" method="post" action="/console/logout"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`)
      : ""
  }</header><main><h1>${title}</h1>${raw(body)}</main></body></html>`;
}

export function table(headers: string[], rows: unknown[][]): string {
  if (rows.length === 0) return html`<p>Nothing here.</p>`;
  return html`<table><thead><tr>${headers.map((h) => raw(html`<th>${h}</th>`))}</tr></thead><tbody>${rows.map(
    (row) => raw(html`<tr>${row.map((cell) => raw(html`<td>${cell}</td>`))}</tr>`),
  )}</tbody></table>`;
}

export const page = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-frame-options": "DENY", ...headers } });
