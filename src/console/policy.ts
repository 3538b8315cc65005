// The Policy page: the spending policy as a form. Limits per currency; the allowlist chosen by name
// among the agents this agent has dealt with (a checkbox each), with a box for others by id (or by a
// known name). A refused form comes back as it was sent, the refused field marked (aria-invalid) with
// the reason beside it; nothing is saved.
import { namesOf } from "../agents/service";
import { read } from "../db";
import { ApiError, invalid } from "../errors";
import { dictionary, ownProperty } from "../json";
import { CURRENCIES } from "../money";
import type { MajorLimits, PolicyInput } from "../outflows/policy";
import { policyView, setPolicy } from "../owners/service";
import { ALLOW, allowBoxes, allowlistFromForm, amountIn, FieldError, tickedIn } from "./fields";
import { knownCounterparties } from "./counterparties";
import { isCurrency } from "./format";
import { html, raw, table, type Writer } from "./views";

export const POLICY_PARTS = [
  ["perTransaction", "Most per outflow"],
  ["daily", "Most per 24 h"],
  ["approvalAbove", "Ask me above"],
] as const;
type Part = (typeof POLICY_PARTS)[number][0];
const isPart = (name: string): name is Part => POLICY_PARTS.some(([part]) => part === name);

type Fields = Record<string, string>;

/** What the form sent, as a policy: amounts per "part.CURRENCY", and the agents it allows. */
function policyFromForm(body: Fields, known: Map<string, string>): PolicyInput {
  const limits = { perTransaction: dictionary<number>(), daily: dictionary<number>(), approvalAbove: dictionary<number>() };
  for (const [name, text] of Object.entries(body)) {
    if (name === "csrf" || name === "allowlist" || name.startsWith(ALLOW)) continue;
    const [part = "", currency = "", ...rest] = name.split(".");
    if (!isPart(part) || !isCurrency(currency) || rest.length > 0) throw invalid(`"${name}" is not a field of this form`);
    const amount = amountIn(name, text);
    if (amount !== undefined) limits[part][currency] = amount;
  }
  const allowlist = allowlistFromForm(body, known);
  return { ...(limits as Record<Part, MajorLimits>), allowlist: allowlist.length ? allowlist : null };
}

/** Which field a service's refusal names ("perTransaction.USDC: …", "allowlist: …"), if any. */
const fieldOf = (message: string) => /^(allowlist|(?:perTransaction|daily|approvalAbove)\.[A-Z]+)\b/.exec(message)?.[1] ?? null;

export type PolicyOutcome = { ok: boolean; text: string; field?: string | null; sent?: Fields };

/** Saves what the form sent, or says why not and which field. */
export async function savePolicy(agentId: string, body: Fields): Promise<PolicyOutcome> {
  const known = await read(knownCounterparties(agentId));
  try {
    await setPolicy(agentId, policyFromForm(body, known));
    return { ok: true, text: "Saved. It applies to the agent's next outflow." };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, text: `Not saved: ${error.message}`, field: error.field, sent: body };
    if (!(error instanceof ApiError)) throw error;
    return { ok: false, text: `Not saved: ${error.message}`, field: fieldOf(error.message), sent: body };
  }
}

export async function policyPage(agentId: string, csrf: string, w: Writer, outcome?: PolicyOutcome): Promise<string> {
  const policy = await read(policyView(agentId));
  const known = await read(knownCounterparties(agentId));
  const sent = outcome?.sent;
  const errorId = (name: string) => `error-${name.replace(/\W/g, "-")}`;
  // A refused form shows what was sent; otherwise the policy in force.
  const valueOf = (part: Part, currency: string) => (sent ? (ownProperty(sent, `${part}.${currency}`) ?? "") : String(policy[part][currency as keyof MajorLimits] ?? ""));
  const marked = (name: string) =>
    outcome?.field === name ? raw(html` aria-invalid="true" aria-describedby="${errorId(name)}"`) : "";
  const beside = (name: string) => (outcome?.field === name ? raw(html`<p class="field-error" id="${errorId(name)}">${outcome.text.replace(/^Not saved: /, "")}</p>`) : "");
  const rows = CURRENCIES.map((currency) => [
    currency,
    ...POLICY_PARTS.map(([part, label]) => {
      const name = `${part}.${currency}`;
      return raw(html`<input name="${name}" inputmode="decimal" aria-label="${label} (${currency})" value="${valueOf(part, currency)}" placeholder="no limit"${marked(name)}>${beside(name)}`);
    }),
    policy.spentLast24h[currency] !== undefined ? w.money(policy.spentLast24h[currency]!, currency) : "",
  ]);
  const allowed = sent ? tickedIn(sent) : new Set(policy.allowlist ?? []);
  const others = (policy.allowlist ?? []).filter((id) => !known.has(id));
  const otherNames = await read(namesOf(others));
  const otherText = sent ? (ownProperty(sent, "allowlist") ?? "") : others.join("\n");
  const listedOthers = others.map((id) => raw(html`<li>${w.who(id, otherNames)}</li>`));
  return html`${outcome ? raw(html`<p class="${outcome.ok ? "ok" : "error"}" id="policy-message" role="status">${outcome.text}</p>`) : ""}
<form method="post" action="/console/policy"><input type="hidden" name="csrf" value="${csrf}">
<section><h2>Limits per currency</h2><p class="muted">Empty means no limit of that kind. The reputation tier's limit applies too; an outflow must pass both.</p>
${raw(table(["Currency", ...POLICY_PARTS.map(([, label]) => label), "Out in the last 24 h"], rows))}</section>
<section><h2>Who the agent may pay</h2><p class="muted">Nobody ticked and nobody below: anyone. With a list, open bets, loan offers and payments to outside addresses are refused.</p>
${raw(allowBoxes(known, allowed))}
${listedOthers.length ? raw(html`<p>Also allowed:</p><ul>${listedOthers}</ul>`) : ""}
<label for="allowlist">Other agents, one name or id per line</label>
<textarea id="allowlist" name="allowlist" rows="3"${marked("allowlist")}>${otherText}</textarea>${beside("allowlist")}</section>
<div class="actions"><button type="submit">Save the policy</button></div></form>`;
}
