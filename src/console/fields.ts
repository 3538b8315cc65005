// Fields the Policy and Keys forms share: amounts, and the allowlist (a checkbox per agent this agent
// has dealt with, "allow.<id>", and a box of other agents' names or ids, one per line). A refused field
// is a FieldError: its name in the form and why.
import { ownProperty } from "../json";
import { html, raw } from "./views";

type Fields = Record<string, string>;
export const ALLOW = "allow.";

export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** An amount field: a number (a decimal comma taken as a point), or undefined when left empty. */
export function amountIn(name: string, text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const amount = text.trim().replace(",", ".");
  if (!/^\d+(\.\d+)?$/.test(amount)) throw new FieldError(name, `"${text}" is not an amount: write a number such as 25 or 12.50, or leave it empty for no limit.`);
  return Number(amount);
}

/** The agents the form allows: its ticked boxes and the names or ids in its `allowlist` box. */
export function allowlistFromForm(body: Fields, known: Map<string, string>): string[] {
  const allowlist = new Set(Object.keys(body).filter((name) => name.startsWith(ALLOW)).map((name) => name.slice(ALLOW.length)));
  const byName = new Map([...known].map(([id, name]) => [name, id]));
  for (const entry of (ownProperty(body, "allowlist") ?? "").split(/[\n,]+/).map((line) => line.trim()).filter(Boolean)) {
    const id = byName.get(entry) ?? (/^[0-9a-f-]{36}$/i.test(entry) ? entry : null);
    if (id === null) throw new FieldError("allowlist", `"${entry}" is not an agent this agent has dealt with: paste its id instead.`);
    allowlist.add(id);
  }
  return [...allowlist];
}

/** The ids a sent form ticked. */
export const tickedIn = (sent: Fields) => new Set(Object.keys(sent).filter((name) => name.startsWith(ALLOW)).map((name) => name.slice(ALLOW.length)));

/** A checkbox per agent of `offered` (id → name), those of `allowed` ticked. */
export function allowBoxes(offered: Map<string, string>, allowed: Set<string>, legend = "Agents it has dealt with"): string {
  const boxes = [...offered].map(
    ([id, name]) => raw(html`<li><label title="${id}"><input type="checkbox" name="${ALLOW}${id}" value="on"${raw(allowed.has(id) ? " checked" : "")}>${name}</label></li>`),
  );
  return boxes.length
    ? html`<fieldset class="plain"><legend>${legend}</legend><ul class="checks">${boxes}</ul></fieldset>`
    : html`<p class="muted">It has not dealt with any agent yet.</p>`;
}
