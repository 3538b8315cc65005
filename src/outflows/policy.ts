// An owner's spending policy for its agent: per currency a per-transaction cap, a 24 h cap and an
// amount above which an outflow waits for the owner; and an optional allowlist of counterparties.
// Stored as JSON on the agent's row (minor units as strings), so the check reads it with the agent.
// The maps per currency have no prototype and are read by own property only: a currency is limited
// only if the owner named it.
import type { StoredPolicy } from "../agents/schema";
import { dictionary, jsonText, ownProperty, readJson, type JsonText } from "../json";
import { CURRENCIES, minorWorth, toMajor, toMinor, type Currency } from "../money";

export type Limits = Partial<Record<Currency, bigint>>;
export type Policy = { perTransaction: Limits; daily: Limits; allowlist: string[] | null; approvalAbove: Limits };

type StoredLimits = StoredPolicy["daily"];

/** Per currency of `from` that is set, `convert(value, currency)`; a map without a prototype. */
function perCurrency<From, To>(from: Partial<Record<Currency, From>> | undefined, convert: (value: From, currency: Currency) => To): Partial<Record<Currency, To>> {
  const result = dictionary<To>();
  for (const currency of CURRENCIES) {
    const value = from && ownProperty(from, currency);
    if (value !== undefined) result[currency] = convert(value, currency);
  }
  return result;
}

export const EMPTY_POLICY: Policy = Object.freeze({ perTransaction: dictionary<bigint>(), daily: dictionary<bigint>(), allowlist: null, approvalAbove: dictionary<bigint>() });

// The same few policies are read on every outflow of their agents: parsed once per distinct text.
const parsed = new Map<JsonText<StoredPolicy>, Policy>();
const PARSED_MAX = 10_000;

/** The policy stored on an agent's row; null when the owner set none. */
export function parsePolicy(text: JsonText<StoredPolicy> | null): Policy | null {
  if (text === null) return null;
  let policy = parsed.get(text);
  if (!policy) {
    const stored = readJson(text);
    const limits = (part: StoredLimits) => perCurrency(part, (value) => BigInt(value));
    policy = { perTransaction: limits(stored.perTransaction), daily: limits(stored.daily), allowlist: stored.allowlist, approvalAbove: limits(stored.approvalAbove) };
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(text, policy);
  }
  return policy;
}

const isEmpty = (policy: Policy) =>
  policy.allowlist === null && [policy.perTransaction, policy.daily, policy.approvalAbove].every((limits) => Object.keys(limits).length === 0);

/** What goes in the agent's row: null for a policy that limits nothing. */
export function storePolicy(policy: Policy): JsonText<StoredPolicy> | null {
  if (isEmpty(policy)) return null;
  const stored = (limits: Limits) => perCurrency(limits, (value) => value.toString());
  return jsonText<StoredPolicy>({
    perTransaction: stored(policy.perTransaction),
    daily: stored(policy.daily),
    allowlist: policy.allowlist,
    approvalAbove: stored(policy.approvalAbove),
  });
}

export type MajorLimits = Partial<Record<Currency, number>>;
export type PolicyInput = { perTransaction?: MajorLimits; daily?: MajorLimits; allowlist?: string[] | null; approvalAbove?: MajorLimits };

/** A policy from the owner's request (major units); a missing part limits nothing. */
export function policyFromInput(input: PolicyInput): Policy {
  const limits = (name: "perTransaction" | "daily" | "approvalAbove") =>
    perCurrency(ownProperty(input, name), (value, currency) => toMinor(value, currency, `${name}.${currency}`));
  const allowlist = ownProperty(input, "allowlist");
  return {
    perTransaction: limits("perTransaction"),
    daily: limits("daily"),
    allowlist: allowlist === undefined || allowlist === null ? null : [...new Set(allowlist)],
    approvalAbove: limits("approvalAbove"),
  };
}

export function limitsView(limits: Limits): MajorLimits {
  return perCurrency(limits, (value, currency) => toMajor(value, currency));
}

/** The parts of a policy given as USD values (UNCLAIMED_POLICY): each becomes, per currency, what that value buys at the reference rates. */
export function policyOfUsdValues(parts: Partial<Record<"perTransaction" | "daily" | "approvalAbove", string>>, rates: Record<string, string>): Policy {
  const limits = (usd: string | undefined): Limits => {
    const each = dictionary<bigint>();
    if (usd !== undefined) for (const currency of CURRENCIES) each[currency] = minorWorth(usd, currency, rates[currency]!);
    return each;
  };
  return { perTransaction: limits(parts.perTransaction), daily: limits(parts.daily), allowlist: null, approvalAbove: limits(parts.approvalAbove) };
}
