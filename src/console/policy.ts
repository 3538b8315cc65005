// The Policy page: the spending policy as a form. Limits for the currencies the agent uses, and one
// more picked from "Add a currency…" (currencies.ts); the allowlist chosen by name among the agents this
// agent has dealt with or already allows (a checkbox each), with a box to add others by id (or by a
// known name). A refused form comes back as it was sent, the refused field marked (aria-invalid) with
// the reason beside it; nothing is saved.
import { namesOf } from "../agents/service";
import { read, write } from "../db";
import { ApiError, invalid } from "../errors";
import { ownProperty } from "../json";
import type { MajorLimits, PolicyInput } from "../outflows/policy";
import { policyView, setPolicy } from "../owners/service";
import { amountRows, amountsIn, currenciesInUse, isAmountField, rowsFor, shownField } from "./currencies";
import { ALLOW, allowBoxes, allowlistFromForm, FieldError, tickedIn } from "./fields";
import { knownCounterparties } from "./counterparties";
import { shortDecimal } from "./format";
import { html, raw, table, type Writer } from "./views";
import { type AgentId } from "../ids";

export const POLICY_PARTS = [
  ["perTransaction", "Most per payment"],
  ["daily", "Most per 24 h"],
  ["approvalAbove", "Ask me above"],
] as const;
type Part = (typeof POLICY_PARTS)[number][0];
const PARTS = POLICY_PARTS.map(([part]) => part);

type Fields = Record<string, string>;

/** What the form sent, as a policy: amounts per "part.CURRENCY" (and the added currency's), and the agents it allows. */
function policyFromForm(body: Fields, known: Map<string, string>): PolicyInput {
  for (const name of Object.keys(body)) {
    if (name !== "csrf" && name !== "allowlist" && !name.startsWith(ALLOW) && !isAmountField(name, PARTS)) throw invalid(`"${name}" is not a field of this form`);
  }
  const limits = amountsIn(body, PARTS);
  const allowlist = allowlistFromForm(body, known);
  return { ...(limits as Record<Part, MajorLimits>), allowlist: allowlist.length ? allowlist : null };
}

/** Which field a service's refusal names ("perTransaction.USDC: …", "allowlist: …"), if any. */
const fieldOf = (message: string) => /^(allowlist|(?:perTransaction|daily|approvalAbove)\.[A-Z]+)\b/.exec(message)?.[1] ?? null;

export type PolicyOutcome = { ok: boolean; text: string; field?: string | null; sent?: Fields };

/** Saves what the form sent, or says why not and which field. */
export async function savePolicy(agentId: AgentId, body: Fields): Promise<PolicyOutcome> {
  const known = await read(knownCounterparties(agentId));
  try {
    const policy = policyFromForm(body, known);
    await write(() => setPolicy(agentId, policy));
    return { ok: true, text: "Saved. It applies to the next payment the agent makes." };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, text: `Not saved: ${error.message}`, field: error.field, sent: body };
    if (!(error instanceof ApiError)) throw error;
    return { ok: false, text: `Not saved: ${error.message}`, field: fieldOf(error.message), sent: body };
  }
}

export async function policyPage(agentId: AgentId, csrf: string, w: Writer, outcome?: PolicyOutcome): Promise<string> {
  const policy = await read(policyView(agentId));
  const limited = PARTS.flatMap((part) => Object.keys(policy[part]));
  const inUse = await read(currenciesInUse(agentId, [...limited, ...Object.keys(policy.spentLast24h)]));
  const known = await read(knownCounterparties(agentId));
  const sent = outcome?.sent;
  const rows = rowsFor(inUse, PARTS, sent);
  const refused = shownField(outcome?.field, rows, sent);
  const errorId = (name: string) => `error-${name.replace(/\W/g, "-")}`;
  const fields = {
    // A refused form shows what was sent; otherwise the policy in force.
    value: (name: string) => {
      if (sent) return ownProperty(sent, name) ?? "";
      const [part, currency] = name.split(".") as [Part, keyof MajorLimits];
      const amount = policy[part]?.[currency];
      return amount === undefined ? "" : shortDecimal(amount, currency);
    },
    marked: (name: string) => (refused === name ? raw(html` aria-invalid="true" aria-describedby="${errorId(name)}"`) : ""),
    beside: (name: string) => (refused === name ? raw(html`<p class="field-error" id="${errorId(name)}">${outcome!.text.replace(/^Not saved: /, "")}</p>`) : ""),
  };
  const spent = (currency: string) => (policy.spentLast24h[currency as keyof MajorLimits] !== undefined ? w.money(policy.spentLast24h[currency as keyof MajorLimits]!, currency) : "");
  const limitRows = amountRows(rows, POLICY_PARTS, fields, "no limit", sent).map((row, index) => [...row, index < rows.length ? spent(rows[index]!) : ""]);
  // Every agent allowed is a box, by name: those it has dealt with, and the others already on the list.
  const others = (policy.allowlist ?? []).filter((id) => !known.has(id));
  const otherNames = await read(namesOf(others));
  const offered = new Map([...known, ...others.map((id): [string, string] => [id, otherNames.get(id) ?? id])]);
  const allowed = sent ? tickedIn(sent) : new Set(policy.allowlist ?? []);
  return html`${outcome ? raw(html`<p class="${outcome.ok ? "ok" : "error"}" id="policy-message" role="status">${outcome.text}</p>`) : ""}
<form method="post" action="/console/policy"><input type="hidden" name="csrf" value="${csrf}">
<section class="amounts"><h2>Limits per currency</h2><p class="muted">Empty means no limit of that kind. The reputation tier's limit applies too; a payment must pass both.</p>
${raw(table(["Currency", ...POLICY_PARTS.map(([, label]) => label), "Spent in the last 24 h"], limitRows))}</section>
<section><h2>Who the agent may pay</h2><p class="muted">Nobody ticked and nobody below: anyone. With a list, open bets, loan offers and payments to outside addresses are refused.</p>
${raw(allowBoxes(offered, allowed, others.length ? "Agents it has dealt with or may pay already" : undefined))}
<label for="allowlist">Add other agents, one name or id per line</label>
<textarea id="allowlist" name="allowlist" rows="2"${fields.marked("allowlist")}>${sent ? (ownProperty(sent, "allowlist") ?? "") : ""}</textarea>${fields.beside("allowlist")}</section>
<div class="actions"><button type="submit">Save the policy</button></div></form>`;
}
