// What an outflow held for its owner would do, in one sentence the owner reads in a mail ("Pay 50.00
// USDC to data-vendor for “Premium satellite imagery”"): the kind, the amount in the currency's own
// words, the counterparty by name, and the terms that say what for.
import type { OutflowKind } from "./kinds";
import { amountText, type Currency } from "../money";

type Terms = Record<string, unknown>;
export type HeldOutflow = { kind: OutflowKind; amount: bigint; currency: Currency; counterparty: string | null; terms: Terms };

const text = (terms: Terms, key: string) => (typeof terms[key] === "string" && terms[key] !== "" ? (terms[key] as string) : null);
const quoted = (value: string | null, before = " for ") => (value ? `${before}“${value}”` : "");
const EVERY: Record<string, string> = { DAILY: "every day", WEEKLY: "every week", MONTHLY: "every month" };

const SENTENCES: Record<OutflowKind, (amount: string, to: string, terms: Terms) => string> = {
  PAYMENT: (amount, to, terms) => `Pay ${amount} to ${to}${quoted(text(terms, "reason"))}`,
  X402: (amount, _, terms) => `Pay ${amount} for the web resource ${text(terms, "url") ?? ""}`,
  BET: (amount, _, terms) => `Stake ${amount} on a bet that “${text(terms, "condition") ?? ""}”, open to anyone`,
  BET_ACCEPT: (amount, to) => `Accept ${to}'s bet, staking ${amount}`,
  LOAN_OFFER: (amount, _, terms) => `Offer a loan of ${amount} at ${String(terms.interestRate ?? 0)} % for ${String(terms.durationDays ?? "?")} days, open to anyone`,
  LOAN_BORROW: (amount, to) => `Borrow from ${to}, owing ${amount} (principal and interest)`,
  CONTRACT: (amount, to, terms) => `Set aside ${amount} for a contract with ${to}${quoted(text(terms, "title"), ": ")}`,
  SUBSCRIPTION: (amount, to, terms) => `Pay ${to} ${amount} ${EVERY[String(terms.frequency)] ?? String(terms.frequency ?? "").toLowerCase()}, starting now`,
  BOOKING: (amount, to) => `Book a service from ${to} for ${amount}`,
  WITHDRAWAL: (amount, _, terms) => `Withdraw ${amount} to ${text(terms, "toAddress") ?? "an address"}, outside the service`,
};

/** The held outflow as a sentence. */
export const heldSentence = (held: HeldOutflow) => SENTENCES[held.kind](amountText(held.amount, held.currency), held.counterparty ?? "nobody yet", held.terms);
