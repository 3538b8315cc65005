// An owner's spending policy for its agent: per currency a per-transaction cap, a 24 h cap and an
// amount above which an outflow waits for the owner; and an optional allowlist of counterparties.
// Stored as JSON on the agent's row (minor units as strings), so the check reads it with the agent.
import { CURRENCIES, toMajor, toMinor, type Currency } from "../money";

export type Limits = Partial<Record<Currency, bigint>>;
export type Policy = { perTransaction: Limits; daily: Limits; allowlist: string[] | null; approvalAbove: Limits };

type StoredLimits = Partial<Record<Currency, string>>;
type Stored = { perTransaction: StoredLimits; daily: StoredLimits; allowlist: string[] | null; approvalAbove: StoredLimits };

export const EMPTY_POLICY: Policy = { perTransaction: {}, daily: {}, allowlist: null, approvalAbove: {} };

const limitsOf = (stored: StoredLimits): Limits => {
  const limits: Limits = {};
  for (const currency of CURRENCIES) if (stored[currency] !== undefined) limits[currency] = BigInt(stored[currency]!);
  return limits;
};
const storedLimits = (limits: Limits): StoredLimits => {
  const stored: StoredLimits = {};
  for (const currency of CURRENCIES) if (limits[currency] !== undefined) stored[currency] = limits[currency]!.toString();
  return stored;
};

// The same few policies are read on every outflow of their agents: parsed once per distinct text.
const parsed = new Map<string, Policy>();
const PARSED_MAX = 10_000;

/** The policy stored on an agent's row; null when the owner set none. */
export function parsePolicy(text: string | null): Policy | null {
  if (text === null) return null;
  let policy = parsed.get(text);
  if (!policy) {
    const stored = JSON.parse(text) as Stored;
    policy = { perTransaction: limitsOf(stored.perTransaction), daily: limitsOf(stored.daily), allowlist: stored.allowlist, approvalAbove: limitsOf(stored.approvalAbove) };
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(text, policy);
  }
  return policy;
}

const isEmpty = (policy: Policy) =>
  policy.allowlist === null && [policy.perTransaction, policy.daily, policy.approvalAbove].every((limits) => Object.keys(limits).length === 0);

/** What goes in the agent's row: null for a policy that limits nothing. */
export function storePolicy(policy: Policy): string | null {
  if (isEmpty(policy)) return null;
  const stored: Stored = {
    perTransaction: storedLimits(policy.perTransaction),
    daily: storedLimits(policy.daily),
    allowlist: policy.allowlist,
    approvalAbove: storedLimits(policy.approvalAbove),
  };
  return JSON.stringify(stored);
}

export type MajorLimits = Partial<Record<Currency, number>>;
export type PolicyInput = { perTransaction?: MajorLimits; daily?: MajorLimits; allowlist?: string[] | null; approvalAbove?: MajorLimits };

/** A policy from the owner's request (major units); a missing part limits nothing. */
export function policyFromInput(input: PolicyInput): Policy {
  const limits = (name: string, values: MajorLimits = {}): Limits => {
    const result: Limits = {};
    for (const currency of CURRENCIES) if (values[currency] !== undefined) result[currency] = toMinor(values[currency]!, currency, `${name}.${currency}`);
    return result;
  };
  return {
    perTransaction: limits("perTransaction", input.perTransaction),
    daily: limits("daily", input.daily),
    allowlist: input.allowlist === undefined || input.allowlist === null ? null : [...new Set(input.allowlist)],
    approvalAbove: limits("approvalAbove", input.approvalAbove),
  };
}

export function limitsView(limits: Limits): MajorLimits {
  const view: MajorLimits = {};
  for (const currency of CURRENCIES) if (limits[currency] !== undefined) view[currency] = toMajor(limits[currency]!, currency);
  return view;
}
