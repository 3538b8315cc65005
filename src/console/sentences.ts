// What a held outflow or negotiation would do, in one sentence an owner reads ("Pay 30.50 USDC to
// bob-bot for 'Premium dataset'"), and what became of it ("You declined this"). The raw terms stay
// available behind a <details> on the page; these sentences only read them.
import type { ApprovalView } from "../owners/service";
import { html, raw, type Writer } from "./views";

type Raw = ReturnType<typeof raw>;
type Terms = Record<string, unknown>;
const text = (terms: Terms, key: string) => (typeof terms[key] === "string" && terms[key] !== "" ? (terms[key] as string) : null);
const quoted = (value: string | null, before = " for ") => (value ? raw(html`${before}<span class="reason">“${value}”</span>`) : "");
const EVERY: Record<string, string> = { DAILY: "every day", WEEKLY: "every week", MONTHLY: "every month" };

type Parts = { amount: Raw; to: Raw; terms: Terms; item: ApprovalView };
const SENTENCES: Record<string, (parts: Parts) => Raw> = {
  PAYMENT: ({ amount, to, terms }) => raw(html`Pay ${amount} to ${to}${quoted(text(terms, "reason"))}`),
  X402: ({ amount, terms }) => raw(html`Pay ${amount} for the web resource ${text(terms, "url") ?? ""}${quoted(text(terms, "payTo"), ", to ")}`),
  BET: ({ amount, terms }) => raw(html`Stake ${amount} on a bet that ${raw(html`<span class="reason">“${text(terms, "condition") ?? ""}”</span>`)}, open to anyone`),
  BET_ACCEPT: ({ amount, to }) => raw(html`Accept ${to}'s bet, staking ${amount}`),
  LOAN_OFFER: ({ amount, terms }) =>
    raw(html`Offer a loan of ${amount} at ${String(terms.interestRate ?? 0)} % for ${String(terms.durationDays ?? "?")} days, open to anyone`),
  LOAN_BORROW: ({ amount, to }) => raw(html`Borrow from ${to}, owing ${amount} (principal and interest)`),
  CONTRACT: ({ amount, to, terms }) => raw(html`Set aside ${amount} for a contract with ${to}${quoted(text(terms, "title"), ": ")}, paid to them once its conditions are met`),
  SUBSCRIPTION: ({ amount, to, terms }) => raw(html`Pay ${to} ${amount} ${EVERY[String(terms.frequency)] ?? String(terms.frequency ?? "").toLowerCase()}, starting now`),
  BOOKING: ({ amount, to }) => raw(html`Book a service from ${to} for ${amount}`),
  WITHDRAWAL: ({ amount, terms }) => raw(html`Withdraw ${amount} to ${text(terms, "toAddress") ?? "an address"}, outside the service`),
  NEGOTIATION: ({ amount, to, terms }) => raw(html`Agree with ${to} on ${amount}${quoted(text(terms, "term") ?? text(terms, "description"), " for ")}`),
};

/** The approval's effect as a sentence, names and amounts written for the viewer. */
export function approvalSentence(item: ApprovalView, w: Writer, names: Map<string, string>): Raw {
  const amount = item.amount === null || item.currency === null ? raw("an offer without an amount") : w.plain(item.amount, item.currency);
  const to = item.counterpartyId ? w.name(item.counterpartyId, names) : raw("nobody yet");
  const sentence = SENTENCES[item.kind];
  const said = sentence ? sentence({ amount, to, terms: item.terms, item }) : raw(html`${item.kind}: ${amount}`);
  return item.keyName === null ? said : raw(html`${said}, <span class="asked-by">asked by key “${item.keyName}”</span>`);
}

/** A decided item's outcome, for its owner. A failure's reason loses its code ("INSUFFICIENT_BALANCE: …"). */
export function outcomeWords(item: ApprovalView): string {
  switch (item.status) {
    case "PENDING":
      return "Waiting for you";
    case "APPROVED":
      return "You approved this";
    case "DECLINED":
      return "You declined this";
    case "EXPIRED":
      return "Expired: nobody decided within 24 h";
    case "FAILED":
      return `You approved this, but it could not be made${item.reason ? `: ${item.reason.replace(/^[A-Z_]+: /, "")}` : ""}`;
    default:
      return item.status.toLowerCase();
  }
}
