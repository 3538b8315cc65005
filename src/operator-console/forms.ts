// What the operator console's money forms take: an amount, a currency and a reason, read from the form
// and refused (400, shown on the page) as the API's schema refuses them; and the confirmation page that
// repeats what a form asked before it is done.
import { field, type Fields } from "../console/door";
import { amountIn, FieldError } from "../console/fields";
import { amountInWords, isCurrency } from "../console/format";
import { csrfField, html, raw } from "../console/views";
import { invalid } from "../errors";
import type { Currency } from "../money";

export const MAX_REASON = 500;

/** The form's reason: required for a correction (`required`), else optional; at most MAX_REASON characters. */
export function reasonOf(body: unknown, required: boolean): string | null {
  const reason = (field(body, "reason") ?? "").trim();
  if (reason.length > MAX_REASON) throw invalid(`the reason is at most ${MAX_REASON} characters`);
  if (required && reason === "") throw invalid("write the reason: it is recorded in the audit log and told to the agent");
  return reason === "" ? null : reason;
}

export function moneyOf(body: unknown): { amount: number; currency: Currency } {
  const currency = field(body, "currency") ?? "";
  if (!isCurrency(currency)) throw invalid(`currency must be one of the service's currencies, not "${currency}"`);
  try {
    const amount = amountIn("amount", field(body, "amount") ?? "");
    if (amount === undefined || amount <= 0) throw invalid("write the amount, a positive number");
    return { amount, currency };
  } catch (error) {
    throw error instanceof FieldError ? invalid(error.message) : error;
  }
}

/** "12.5 USDC (twelve point five …)": an amount as the confirmation page repeats it. */
export const inWords = (amount: number, currency: Currency) => `${amount} ${currency} (${amountInWords(amount, currency)})`;

/**
 * The page that asks again: `text`, and one button posting the same fields back to `action` with
 * `confirm=yes` (and a key of its own, `once`, so a second click does it once).
 */
export function confirmation(text: string, action: string, csrf: string, fields: Fields, button: string): string {
  const hidden = Object.entries(fields).map(([name, value]) => raw(html`<input type="hidden" name="${name}" value="${value}">`));
  return html`<section class="confirm"><p>${text}</p><form method="post" action="${action}">${csrfField(csrf)}${hidden}<input type="hidden" name="confirm" value="yes"><input type="hidden" name="once" value="${crypto.randomUUID()}">
<div class="actions"><button type="submit" class="danger">${button}</button><a class="button plain" href="${action.replace(/\/[a-z]+$/, "")}">Cancel</a></div></form></section>`;
}

export const confirmed = (body: unknown) => field(body, "confirm") === "yes";
