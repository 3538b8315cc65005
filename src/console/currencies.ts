// Amounts per currency in a form (the policy's limits, a new key's budgets): a row for each currency the
// agent uses, and one more whose currency the owner picks from a select ("Add a currency…"), instead
// of a row for every currency the service has. The added row's fields are "<part>.new"; its currency is
// the select "currency.new". Once saved with an amount, the currency has a limit and gets its own row.
import { all, type Op } from "../db";
import { dictionary, ownProperty } from "../json";
import { CURRENCIES, type Currency } from "../money";
import { balancesView } from "../wallets/balances";
import { amountIn, FieldError } from "./fields";
import { isCurrency } from "./format";
import { html, raw } from "./views";
import { type AgentId } from "../ids";

type Fields = Record<string, string>;
export const ADDED_CURRENCY = "currency.new";
/** How far back "used" looks: the agent's latest movements (a bounded read however long its history). */
const RECENT_POSTINGS = 1000;

/** The currencies the agent uses: with money in them (available or set aside), moved in its latest movements, or in `also` (a limit). */
export function* currenciesInUse(agentId: AgentId, also: Iterable<string> = []): Op<Currency[]> {
  const balances = yield* balancesView(agentId);
  const recent = yield* all<{ currency: Currency }>(
    `SELECT DISTINCT currency FROM (SELECT currency FROM postings WHERE history_agent_id = ? ORDER BY id DESC LIMIT ${RECENT_POSTINGS}) recent`,
    agentId,
  );
  const used = new Set<string>([...balances.filter((b) => b.available !== 0 || b.held !== 0).map((b) => b.currency), ...recent.map((row) => row.currency), ...also]);
  return CURRENCIES.filter((currency) => used.has(currency));
}

/** The rows a sent form comes back with: the currencies in use and those it sent amounts for. */
export function rowsFor(inUse: Currency[], parts: readonly string[], sent: Fields | undefined): Currency[] {
  const sentFor = (currency: Currency) => parts.some((part) => (ownProperty(sent ?? {}, `${part}.${currency}`) ?? "").trim() !== "");
  return CURRENCIES.filter((currency) => inUse.includes(currency) || (sent !== undefined && sentFor(currency)));
}

/** The amounts a form sent, part → currency → amount: "<part>.<CURRENCY>", and the added row's under the currency chosen for it. */
export function amountsIn<Part extends string>(body: Fields, parts: readonly Part[]): Record<Part, Partial<Record<Currency, number>>> {
  const amounts = Object.fromEntries(parts.map((part) => [part, dictionary<number>()])) as Record<Part, Partial<Record<Currency, number>>>;
  for (const part of parts) {
    for (const currency of CURRENCIES) {
      const amount = amountIn(`${part}.${currency}`, ownProperty(body, `${part}.${currency}`) ?? "");
      if (amount !== undefined) amounts[part][currency] = amount;
    }
  }
  const added = parts.flatMap((part) => {
    const amount = amountIn(`${part}.new`, ownProperty(body, `${part}.new`) ?? "");
    return amount === undefined ? [] : [[part, amount] as const];
  });
  if (added.length === 0) return amounts;
  const currency = (ownProperty(body, ADDED_CURRENCY) ?? "").trim();
  if (!isCurrency(currency)) throw new FieldError(ADDED_CURRENCY, "Choose the currency of the amounts you added.");
  for (const [part, amount] of added) {
    if (amounts[part][currency] !== undefined) throw new FieldError(`${part}.new`, `${currency} has its own row above: write it there.`);
    amounts[part][currency] = amount;
  }
  return amounts;
}

/** Whether `name` is a field of an amounts form with `parts`. */
export const isAmountField = (name: string, parts: readonly string[]) =>
  name === ADDED_CURRENCY || parts.some((part) => name === `${part}.new` || (name.startsWith(`${part}.`) && isCurrency(name.slice(part.length + 1))));

/** The field a refusal names ("perTransaction.BTC"), as the form shows it: in the added row when that is where BTC was chosen. */
export function shownField(field: string | null | undefined, rows: Currency[], sent: Fields | undefined): string | null {
  const match = /^(\w+)\.([A-Z]+)$/.exec(field ?? "");
  if (!match || rows.includes(match[2] as Currency) || ownProperty(sent ?? {}, ADDED_CURRENCY) !== match[2]) return field ?? null;
  return `${match[1]}.new`;
}

/** How a form writes one of its fields: the value it shows, and (once refused) the mark and the reason beside it. */
export type FieldWriter = { value: (name: string) => string; marked: (name: string) => unknown; beside: (name: string) => unknown };

/**
 * An amount input per part for each currency of `rows`, then the added row: a select of the other
 * currencies (the sent one chosen) and its inputs. No added row when every currency has a row.
 */
export function amountRows(rows: Currency[], parts: readonly (readonly [string, string])[], fields: FieldWriter, placeholder: string, sent: Fields | undefined): unknown[][] {
  const input = (name: string, label: string) =>
    raw(html`<input name="${name}" inputmode="decimal" aria-label="${label}" value="${fields.value(name)}" placeholder="${placeholder}"${fields.marked(name)}>${fields.beside(name)}`);
  const shown = rows.map((currency) => [currency, ...parts.map(([part, label]) => input(`${part}.${currency}`, `${label} (${currency})`))]);
  const others = CURRENCIES.filter((currency) => !rows.includes(currency));
  if (others.length === 0) return shown;
  const chosen = ownProperty(sent ?? {}, ADDED_CURRENCY);
  const options = others.map((currency) => raw(html`<option value="${currency}"${raw(currency === chosen ? " selected" : "")}>${currency}</option>`));
  const select = raw(html`<select name="${ADDED_CURRENCY}" aria-label="Add a currency"${fields.marked(ADDED_CURRENCY)}><option value="">Add a currency…</option>${options}</select>${fields.beside(ADDED_CURRENCY)}`);
  return [...shown, [select, ...parts.map(([part, label]) => input(`${part}.new`, `${label} (the added currency)`))]];
}
