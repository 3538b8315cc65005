// Amounts are bigint minor units inside the service and JSON numbers in major units at the HTTP edge.
// This module is the only place that converts between the two.
import { invalid } from "./errors";

export const CURRENCIES = ["USDC", "USDT", "USD", "EUR", "BTC"] as const;
export type Currency = (typeof CURRENCIES)[number];

export const DECIMALS: Record<Currency, number> = { USDC: 6, USDT: 6, USD: 2, EUR: 2, BTC: 8 };

const MAX_MAJOR = 1_000_000_000;

/** Exact decimal digits of a double as JavaScript prints it (shortest round-trip form). */
function decimalDigits(value: number): { int: string; frac: string } {
  const text = value.toString();
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) throw invalid(`amount ${text} is not a plain decimal number`);
  let digits = match[1]! + (match[2] ?? "");
  let point = match[1]!.length + Number(match[3] ?? 0);
  if (point <= 0) {
    digits = "0".repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  return { int: digits.slice(0, point), frac: digits.slice(point).replace(/0+$/, "") };
}

/** Major-unit number → minor units. Rejects non-finite, non-positive, > 1e9 and excess precision. */
export function toMinor(value: number, currency: Currency, field = "amount"): bigint {
  if (!Number.isFinite(value) || value <= 0) throw invalid(`${field} must be a positive number`);
  if (value > MAX_MAJOR) throw invalid(`${field} must be at most ${MAX_MAJOR}`);
  const decimals = DECIMALS[currency];
  const { int, frac } = decimalDigits(value);
  if (frac.length > decimals) throw invalid(`${field} has more than ${decimals} decimals, the precision of ${currency}`);
  return BigInt(int + frac.padEnd(decimals, "0"));
}

/** A non-negative filter bound (e.g. minPrice) in minor units, rounded toward the inside of the range. */
export function boundToMinor(value: number, currency: Currency, round: "floor" | "ceil"): bigint {
  const decimals = DECIMALS[currency];
  const { int, frac } = decimalDigits(value);
  const kept = BigInt(int + frac.slice(0, decimals).padEnd(decimals, "0"));
  const cut = frac.length > decimals;
  return round === "ceil" && cut ? kept + 1n : kept;
}

/** Minor units → major-unit number, exactly as the decimal string reads. */
export function toMajor(minor: bigint, currency: Currency): number {
  const decimals = DECIMALS[currency];
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, "0");
  const text = `${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals)}`;
  return negative ? -Number(text) : Number(text);
}

/**
 * An amount as a person reads it, with its currency: two decimals, more only where they are not zero
 * (50.00 USDC, 0.000125 USDC, 0.00031 BTC): nothing is rounded away.
 */
export function amountText(minor: bigint, currency: Currency): string {
  const decimals = DECIMALS[currency];
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, "0");
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "").padEnd(Math.min(2, decimals), "0");
  return `${negative ? "-" : ""}${digits.slice(0, digits.length - decimals)}${fraction ? `.${fraction}` : ""} ${currency}`;
}

/** A decimal string ("1.08") as a scaled integer with 8 decimals, for exact USD comparisons. */
const RATE_DECIMALS = 8;
export function scaleRate(rate: string): bigint {
  const [int, frac = ""] = rate.split(".");
  return BigInt(int! + frac.padEnd(RATE_DECIMALS, "0").slice(0, RATE_DECIMALS));
}

/** Is amountMinor × rate (USD per unit) greater than limitUsd (a decimal string)? Exact, no floats. */
export function usdValueExceeds(amountMinor: bigint, currency: Currency, rate: string, limitUsd: string): boolean {
  const left = amountMinor * scaleRate(rate);
  const right = scaleRate(limitUsd) * 10n ** BigInt(DECIMALS[currency] + RATE_DECIMALS) / 10n ** BigInt(RATE_DECIMALS);
  return left > right;
}

/** The most of `currency` worth at most `usd` (a decimal string) at a reference rate, in minor units (rounded down). Exact, no floats. */
export function minorWorth(usd: string, currency: Currency, rate: string): bigint {
  return (scaleRate(usd) * 10n ** BigInt(DECIMALS[currency])) / scaleRate(rate);
}

/** The USD value of an amount at a reference rate, rounded to cents: for display, never for a decision. */
export function usdValue(amountMinor: bigint, currency: Currency, rate: string): number {
  const cents = (amountMinor * scaleRate(rate) * 100n) / 10n ** BigInt(DECIMALS[currency] + RATE_DECIMALS);
  return Number(cents) / 100;
}
