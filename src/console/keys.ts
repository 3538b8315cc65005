// The Keys page: the agent's API key and the owner key (rotated after a confirmation), every restricted
// key (pp_r_…), paged with the count, with its budget left per currency, last use, expiry and status,
// each revoked after a confirmation (or all at once), and a form that makes one (shown once). Keys are
// made as the owner would with the API (POST /agents/me/keys with the owner key), through the same service.
import { findAgent } from "../agents/service";
import { makeKey } from "../profile/new-key";
import { find, read, write } from "../db";
import { ApiError, notFound } from "../errors";
import { dictionary, ownProperty } from "../json";
import type { Currency } from "../money";
import { MAX_ACTIVE_KEYS, type NewKey } from "../keys/create";
import { agentKeys } from "../keys/schema";
import { SCOPES } from "../keys/scopes";
import { activeKeyCount, keyView, listKeys, revokeKey, type KeyView } from "../keys/service";
import { DAY_MS } from "../time";
import { amountRows, amountsIn, currenciesInUse, rowsFor, shownField } from "./currencies";
import { allowBoxes, allowlistFromForm, FieldError, tickedIn } from "./fields";
import { knownCounterparties } from "./counterparties";
import { csrfField, html, raw, table, type Writer } from "./views";
import { SCOPE_LABELS, scopeWords, statusTag } from "./words";
import { type AgentId } from "../ids";

type Fields = Record<string, string>;

/** Keys per page of the list (newest first); every key is on some page. */
const LISTED = 50;
const BUDGET_PARTS = [
  ["perTransaction", "Most per payment"],
  ["total", "Most in all"],
] as const;
const PARTS = BUDGET_PARTS.map(([part]) => part);
const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;

const scopeList = (key: KeyView) => scopeWords(key.scopes);

/** Per currency: what the total has left, or what was spent when there is no total; the most per payment. */
function budgetLeft(key: KeyView, w: Writer) {
  const lines = Object.entries(key.budgets).map(([currency, budget]) => {
    const left = budget.remaining === null ? raw(html`no total, ${w.plain(budget.spent, currency)} spent`) : raw(html`${w.plain(budget.remaining, currency)} left of ${w.plain(budget.total!, currency)}`);
    const each = budget.perTransaction === null ? "" : raw(html`; at most ${w.plain(budget.perTransaction, currency)} per payment`);
    return raw(html`<div class="budget" data-currency="${currency}">${left}${each}</div>`);
  });
  return raw(lines.length ? html`${lines}` : html`<span class="muted">no budget</span>`);
}

/** What the form sent, as the API's body. */
function keyFromForm(body: Fields, known: Map<string, string>): NewKey {
  const name = (ownProperty(body, "name") ?? "").trim();
  if (name === "" || name.length > 100) throw new FieldError("name", "Give the key a name of 1 to 100 characters (what it is for).");
  const scopes = SCOPES.filter((scope) => ownProperty(body, `scope.${scope}`) !== undefined);
  if (scopes.length === 0) throw new FieldError("scopes", "Tick at least one thing the key may do.");
  const budgets = dictionary<{ perTransaction?: number; total?: number }>();
  const amounts = amountsIn(body, PARTS);
  for (const part of PARTS) for (const [currency, amount] of Object.entries(amounts[part])) (budgets[currency as Currency] ??= {})[part] = amount;
  const daysText = (ownProperty(body, "expiresInDays") ?? "").trim() || String(DEFAULT_DAYS);
  if (!/^\d+$/.test(daysText) || Number(daysText) < 1 || Number(daysText) > MAX_DAYS) throw new FieldError("expiresInDays", `Write a whole number of days from 1 to ${MAX_DAYS}.`);
  const allowlist = allowlistFromForm(body, known);
  return { name, scopes, budgets, allowlist: allowlist.length ? allowlist : null, expiresInSeconds: (Number(daysText) * DAY_MS) / 1000 };
}

export type KeyOutcome = { ok: true; apiKey: string; name: string } | { ok: false; text: string; field: string | null; sent: Fields };

/** Makes the key the form asks for, or says why not and which field. */
export async function createKeyFromForm(agentId: AgentId, body: Fields): Promise<KeyOutcome> {
  const known = await read(knownCounterparties(agentId));
  try {
    const asked = keyFromForm(body, known);
    // Made as the owner key does: a console session lasts only while the owner key it signed in with does.
    const { row, apiKey } = await write(function* () {
      const agent = (yield* findAgent(agentId))!;
      return yield* makeKey(agentId, { madeWith: agent.ownerKeyHash }, asked, "You (in the console)");
    });
    return { ok: true, apiKey, name: row.name };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, text: error.message, field: error.field, sent: body };
    if (!(error instanceof ApiError)) throw error;
    // The service names a refused budget "budgets.USDC.total: …"; the form's field is "total.USDC".
    const budget = /^budgets\.([A-Z]+)\.(perTransaction|total)\b/.exec(error.message);
    return { ok: false, text: error.message, field: budget ? `${budget[2]}.${budget[1]}` : null, sent: body };
  }
}

/** The restricted key `id` of the agent, or a 404 the page shows. */
export async function keyOf(agentId: AgentId, id: string): Promise<KeyView> {
  const row = await read(find(agentKeys, id));
  if (!row || row.agentId !== agentId) throw notFound("key");
  return read(keyView(row));
}

export async function revokeFromConsole(agentId: AgentId, id: string): Promise<KeyView> {
  return write(function* () {
    return yield* keyView(yield* revokeKey(agentId, id, null));
  });
}

/**
 * Where MCP clients connected through OAuth are listed: their tokens are restricted keys named like the
 * client. Until that lands the section says how to connect one; it stays its own section so that the
 * consent feature fills it without touching the keys above.
 */
function connectedClients(): string {
  return html`<section id="connected-clients"><h2>Connected clients</h2><p class="muted">An MCP host you connected through its sign-in (OAuth) holds a restricted key named “MCP host: …” in the table above, with the scopes and budget you gave it: revoking that key disconnects it, and every token it holds stops at once.</p></section>`;
}

/** `inUse`: the currencies the agent uses, a budget row each (others through "Add a currency…"). */
function newKeyForm(csrf: string, known: Map<string, string>, inUse: Currency[], outcome?: KeyOutcome): string {
  const sent = outcome && !outcome.ok ? outcome.sent : undefined;
  const rows = rowsFor(inUse, PARTS, sent);
  const refused = outcome && !outcome.ok ? shownField(outcome.field, rows, sent) : null;
  const errorId = (name: string) => `error-${name.replace(/\W/g, "-")}`;
  const marked = (name: string) => (refused === name ? raw(html` aria-invalid="true" aria-describedby="${errorId(name)}"`) : "");
  const beside = (name: string) => (refused === name ? raw(html`<p class="field-error" id="${errorId(name)}">${outcome!.ok ? "" : outcome!.text}</p>`) : "");
  const value = (name: string, fallback = "") => (sent ? (ownProperty(sent, name) ?? "") : fallback);
  const scopeBoxes = SCOPES.map(
    (scope) =>
      raw(html`<li><label title="${scope}"><input type="checkbox" name="scope.${scope}" value="on"${raw(sent && ownProperty(sent, `scope.${scope}`) !== undefined ? " checked" : "")}>${SCOPE_LABELS[scope]}</label></li>`),
  );
  const budgetRows = amountRows(rows, BUDGET_PARTS, { value, marked, beside }, "no budget", sent);
  // Folded until asked for (the page leads with the keys there are); open again when a sent form comes back refused.
  return html`<section class="amounts" id="new-key"><details${raw(sent ? " open" : "")}><summary class="button plain">Make a restricted key…</summary>
<form method="post" action="/console/security/keys">${csrfField(csrf)}<h2>Make a restricted key</h2>
<label for="key-name">Name</label><input id="key-name" name="name" maxlength="100" value="${value("name")}" placeholder="research sub-agent" required${marked("name")}>${beside("name")}
<fieldset class="plain"${marked("scopes")}><legend>What it may do (docs/delegation.md)</legend><ul class="checks">${scopeBoxes}</ul></fieldset>${beside("scopes")}
<p class="muted">Budgets per currency; empty means no budget of that kind (the tier and your policy still apply).</p>
${raw(table(["Currency", ...BUDGET_PARTS.map(([, label]) => label)], budgetRows))}
<h2>Who it may pay</h2><p class="muted">Nobody ticked and nobody below: anyone.</p>
${raw(allowBoxes(known, sent ? tickedIn(sent) : new Set()))}
<label for="key-allowlist">Other agents, one name or id per line</label>
<textarea id="key-allowlist" name="allowlist" rows="2"${marked("allowlist")}>${value("allowlist")}</textarea>${beside("allowlist")}
<label for="key-days">Expires after (days)</label><input id="key-days" name="expiresInDays" inputmode="numeric" value="${value("expiresInDays", String(DEFAULT_DAYS))}"${marked("expiresInDays")}>${beside("expiresInDays")}
<div class="actions"><button type="submit">Make the key</button></div></form></details></section>`;
}

export async function keysPage(agentId: AgentId, csrf: string, w: Writer, pageNumber: number, outcome?: KeyOutcome): Promise<string> {
  const { data, total, more } = await read(listKeys(agentId, { limit: LISTED, offset: (pageNumber - 1) * LISTED }));
  const active = await read(activeKeyCount(agentId));
  const known = await read(knownCounterparties(agentId));
  const rows = data.map((key) => [
    raw(html`<strong class="key-name">${key.name}</strong>`),
    scopeList(key),
    budgetLeft(key, w),
    key.lastUsedAt ? w.when(key.lastUsedAt) : raw(html`<span class="muted">never</span>`),
    w.when(key.expiresAt),
    statusTag(key.status),
    key.status === "ACTIVE" ? raw(html`<a class="button plain" href="/console/security/keys/${key.id}/revoke">Revoke…</a>`) : "",
  ]);
  const made =
    outcome?.ok === true
      ? raw(html`<section><p class="ok" role="status">The key “${outcome.name}” was made. Store it now: it is not shown again.</p><p class="key" id="new-restricted-key">${outcome.apiKey}</p></section>`)
      : outcome
        ? raw(html`<p class="error" id="key-message" role="status">Not made: ${outcome.text}</p>`)
        : "";
  const last = Math.max(1, Math.ceil(total / LISTED));
  const newer = pageNumber > 1 ? raw(html`<a href="/console/security?page=${pageNumber - 1}">← newer</a>`) : "";
  const older = more ? raw(html`<a href="/console/security?page=${pageNumber + 1}">older →</a>`) : "";
  const revokeAll = active > 0 ? raw(html`<div class="actions"><a class="button danger" href="/console/security/revoke-all">Revoke every restricted key…</a></div>`) : "";
  return html`${made}<section id="restricted-keys"><h2>Restricted keys</h2><p class="muted">Keys (pp_r_…) for sub-agents, scripts and dashboards: what each may do, spend and pay whom, until it expires.</p>
<p id="key-count">${total === 1 ? "1 key" : `${total} keys`}, ${active} in force (at most ${MAX_ACTIVE_KEYS}).</p>
${raw(table(["Name", "What it may do", "Budget left", "Last used", "Expires", "Status", ""], rows))}
<p>Page ${pageNumber} of ${last} ${newer} ${older}</p>${revokeAll}</section>
${raw(newKeyForm(csrf, known, await read(currenciesInUse(agentId)), outcome))}
${raw(connectedClients())}
<section><h2>The agent's API key</h2><p>Rotating replaces the agent's API key at once: the old key stops working, and so does every restricted key it made (unless you keep them). The new key is shown once.</p>
<div class="actions"><a class="button danger" href="/console/security/rotate">Rotate the API key…</a></div></section>
<section><h2>Your owner key</h2><p>Replacing your owner key (po_…) ends the old one at once, every console session signed in with it (this one too) and every restricted key and connected MCP host it made (unless you keep them). The new key is shown once; sign in with it.</p>
<div class="actions"><a class="button danger" href="/console/security/owner-key">Replace the owner key…</a></div></section>`;
}

/** The confirmation before every restricted key is revoked: how many stop. */
export async function confirmRevokeAll(agentId: AgentId, csrf: string): Promise<string> {
  const active = await read(activeKeyCount(agentId));
  return html`<section class="confirm danger"><p>Revoke every restricted key of this agent (${active} in force), and every key made from them? Sub-agents, scripts and connected MCP hosts using them stop at once; what they left waiting (open loan offers and bets, held approvals) is given back. The agent's own API key keeps working. This cannot be undone.</p>
<form method="post" action="/console/security/revoke-all">${csrfField(csrf)}
<div class="actions"><button type="submit" class="danger">Yes, revoke every restricted key</button><a class="button plain" href="/console/security">Cancel</a></div></form></section>`;
}

/** The confirmation before a key is revoked: its name and what stops. */
export function confirmRevoke(key: KeyView, csrf: string): string {
  return html`<section class="confirm danger"><p>Revoke the key “${key.name}” (${scopeList(key)})? It stops working at once, and so does every key made from it. This cannot be undone.</p>
<form method="post" action="/console/security/keys/${key.id}/revoke">${csrfField(csrf)}
<div class="actions"><button type="submit" class="danger">Yes, revoke “${key.name}”</button><a class="button plain" href="/console/security">Cancel</a></div></form></section>`;
}
