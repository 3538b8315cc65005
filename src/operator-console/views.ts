// The operator console's frame: the owner console's page, style and escaping (console/views.ts), with
// the operator's navigation and name in the header.
import { t } from "elysia";
import { csrfField, document, html, page, raw } from "../console/views";
import { OPERATOR_PATH } from "./sessions";

const NAV: [string, string][] = [
  [OPERATOR_PATH, "Agents"],
  [`${OPERATOR_PATH}/webhooks`, "Failing webhooks"],
  [`${OPERATOR_PATH}/withdrawals`, "Withdrawals"],
  [`${OPERATOR_PATH}/chain`, "Chain"],
  [`${OPERATOR_PATH}/ledger`, "Ledger check"],
  [`${OPERATOR_PATH}/audit`, "Audit log"],
  [`${OPERATOR_PATH}/mail`, "Mail"],
];

/** A signed-in page of the operator console, `current` marked in the menu. */
export function operatorLayout(shell: { title: string; operator: string; csrf: string; current: string }, body: string, status = 200) {
  const links = NAV.map(([href, label]) => raw(html`<a href="${href}"${raw(shell.current === href ? ' aria-current="page"' : "")}>${label}</a>`));
  const header = html`<span class="who">${shell.operator}<small>operator console</small></span>${links}
<form class="inline" method="post" action="${OPERATOR_PATH}/logout">${csrfField(shell.csrf)}<button type="submit" class="plain">Sign out</button></form>`;
  return page(document(shell.title, header, body), status);
}

/** A page before sign-in, or a refusal: no navigation. */
export const operatorBare = (title: string, body: string, status = 200, headers: Record<string, string> = {}) =>
  page(document(title, html`<span class="who">agentbank operator console</span>`, body), status, headers);

export const operatorRefused = (reason: string, status = 403) => operatorBare("Refused", html`<p class="error">${reason}</p><p><a href="${OPERATOR_PATH}">Back</a></p>`, status);

export const PAGE_SIZE = 50;
/** The page's query field: a page number (1 on anything else). */
export const PageField = t.Optional(t.String({ maxLength: 9 }));
/** The rows of page `page` (its query field), PAGE_SIZE to a page. */
export const windowOf = (page: string | undefined) => ({ limit: PAGE_SIZE, offset: (pageNumber(page) - 1) * PAGE_SIZE });
const pageNumber = (page: string | undefined) => Math.max(1, Math.min(1_000_000, Number(page ?? 1) || 1));

/** A link to the next page when this one is full: `path` with the query's other fields kept. */
export function nextPage(path: string, query: Record<string, string | undefined>, shown: number): string {
  if (shown < PAGE_SIZE) return "";
  const kept = Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => !!entry[1] && entry[0] !== "page"));
  return html`<p><a href="${path}?${new URLSearchParams({ ...kept, page: String(pageNumber(query.page) + 1) })}">Next page</a></p>`;
}

/** A value the service answered (the chain's status, the ledger check), shown as it is. */
export const shown = (value: unknown) => html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
