// How the console writes amounts and times for a person: per currency with its decimals and the USD
// value beside it, in the viewer's language (Accept-Language); amounts in words for confirmations;
// times as <time> elements the page's script turns into the viewer's own time zone.
import { config } from "../config";
import { CURRENCIES, DECIMALS, toMinor, usdValue, type Currency } from "../money";

const SYMBOL: Partial<Record<Currency, string>> = { USD: "USD", EUR: "EUR" };

/** The viewer's locale from Accept-Language, if the runtime knows it; English otherwise. */
export function localeOf(request: Request): string {
  const wanted = (request.headers.get("accept-language") ?? "").split(",")[0]?.split(";")[0]?.trim();
  if (!wanted) return "en";
  try {
    return Intl.NumberFormat.supportedLocalesOf([wanted])[0] ?? "en";
  } catch {
    return "en";
  }
}

export const isCurrency = (value: string): value is Currency => (CURRENCIES as readonly string[]).includes(value);

/**
 * "4,800.00 USDC": at least 2 decimals, and as many more of the currency's own as are not zero (USDC
 * 0.000001 stays 0.000001, BTC 0.5 is 0.50): nothing is rounded away. Grouped the viewer's way.
 */
export function formatAmount(amount: number, currency: string, locale: string): string {
  const decimals = isCurrency(currency) ? DECIMALS[currency] : 2;
  const number = new Intl.NumberFormat(locale, { minimumFractionDigits: Math.min(2, decimals), maximumFractionDigits: decimals }).format(amount);
  return `${number} ${SYMBOL[currency as Currency] ?? currency}`;
}

/** The amount as a plain decimal with all of the currency's decimals: "-30.500000" (no grouping, "." as the point). */
export function plainDecimal(amount: number, currency: Currency): string {
  return amount.toFixed(DECIMALS[currency]);
}

/** As plainDecimal, without the trailing zeros a person does not type: "30.5", "100". */
export const shortDecimal = (amount: number, currency: Currency) => plainDecimal(amount, currency).replace(/0+$/, "").replace(/\.$/, "");

/**
 * "≈ 5,184.00 USD" for a currency other than USD; "" when it is USD, unknown, or nothing. A value under
 * a cent (either sign) is "< 0.01 USD", never "≈ 0.00 USD".
 */
export function usdHint(amount: number, currency: string, locale: string): string {
  if (!isCurrency(currency) || currency === "USD" || amount === 0) return "";
  const usd = usdValue(toMinor(Math.abs(amount), currency), currency, config.referenceRates[currency]!);
  const cents = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  if (usd === 0) return `< ${cents.format(0.01)} USD`;
  return `≈ ${cents.format(amount < 0 ? -usd : usd)} USD`;
}

const ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const SCALES: [bigint, string][] = [
  [1_000_000_000n, "billion"],
  [1_000_000n, "million"],
  [1_000n, "thousand"],
];

function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds) parts.push(`${ONES[hundreds]} hundred`);
  if (rest >= 20) parts.push(TENS[Math.floor(rest / 10)]! + (rest % 10 ? `-${ONES[rest % 10]}` : ""));
  else if (rest || !hundreds) parts.push(ONES[rest]!);
  return parts.join(" ");
}

function wholeInWords(value: bigint): string {
  if (value < 1000n) return belowThousand(Number(value));
  const parts: string[] = [];
  let rest = value;
  for (const [scale, name] of SCALES) {
    if (rest >= scale) {
      parts.push(`${wholeInWords(rest / scale)} ${name}`);
      rest %= scale;
    }
  }
  if (rest) parts.push(belowThousand(Number(rest)));
  return parts.join(" ");
}

/**
 * An amount in words, the way a cheque writes it: "four thousand eight hundred and 50/100 USDC". Exact:
 * the fraction is the amount's own decimals, never rounded.
 */
export function amountInWords(amount: number, currency: string): string {
  const decimals = isCurrency(currency) ? DECIMALS[currency] : 2;
  const minor = isCurrency(currency) ? toMinor(amount, currency) : BigInt(Math.round(amount * 100));
  const scale = 10n ** BigInt(decimals);
  const whole = minor / scale;
  let fraction = (minor % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  if (fraction.length === 1) fraction += "0";
  const words = wholeInWords(whole);
  return fraction ? `${words} and ${fraction}/1${"0".repeat(fraction.length)} ${currency}` : `${words} ${currency}`;
}

/** An instant for the page: UTC text the script rewrites in the viewer's zone and language. */
export function timeTag(iso: string | null | undefined): string {
  if (!iso) return "";
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return `<time datetime="${iso}">${text}</time>`;
}
