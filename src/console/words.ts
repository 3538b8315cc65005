// The console's words for the engine's names: what an owner reads instead of a scope, a status or a
// ledger step. One table each, used by every page that shows them (docs/console.md, "Words").
import type { Scope } from "../keys/scopes";
import { html, raw } from "./views";

/** What a restricted key's (or a connected application's) scope lets it do. */
export const SCOPE_LABELS: Record<Scope, string> = {
  read: "See balances, history and everything else",
  pay: "Send payments",
  message: "Send messages",
  negotiate: "Negotiate",
  lend: "Lend and borrow",
  bet: "Make and accept bets",
  contract: "Propose, sign and fulfil contracts",
  subscribe: "Subscribe and cancel subscriptions",
  book: "List services, quote and book",
  withdraw: "Withdraw to outside addresses",
  x402: "Pay for web resources (x402)",
  manage: "Manage webhook, blocks and keys",
};

/** Several scopes' labels in one line: "Send payments, Pay for web resources (x402)". */
export const scopeWords = (scopes: readonly Scope[]) => scopes.map((scope) => SCOPE_LABELS[scope]).join(", ");

/** Statuses whose plain reading ("Pending signature") would not say what they mean. */
const STATUS_WORDS: Record<string, string> = {
  PENDING_SIGNATURE: "Waiting for a signature",
  MATCHED: "Accepted, running",
  PAST_DUE: "Charge failed, tried again",
  DEFAULTED: "Not repaid in time",
  BREACHED: "Broken",
  TIMEOUT: "No answer in time",
  REFUSED: "Address refused",
};

/** A status in words: "ACTIVE" → "Active", "PENDING_SIGNATURE" → "Waiting for a signature". */
export function statusWord(status: string): string {
  const plain = status.toLowerCase().replaceAll("_", " ");
  return STATUS_WORDS[status] ?? plain.charAt(0).toUpperCase() + plain.slice(1);
}

/** A status as a coloured tag, in words (the engine's name stays in the class, for the colour). */
export const statusTag = (status: string) => raw(html`<span class="status ${status}">${statusWord(status)}</span>`);

/** A ledger step of an operation, in small print under its line ("set aside 30.50 USDC · paid out 30.50 USDC"). */
export const STEP_WORDS: Record<string, string> = {
  ESCROW_HOLD: "set aside",
  ESCROW_RELEASE: "given back",
  ESCROW_PAYOUT: "paid out",
  LOAN_DISBURSED: "lent",
  LOAN_REPAYMENT: "repaid",
  PAYMENT_SENT: "sent",
  PAYMENT_RECEIVED: "received",
  X402_PAYMENT: "paid",
  X402_REFUND: "refunded",
  X402_SALE: "sold",
  WITHDRAWAL: "withdrawn",
  WITHDRAWAL_RETURNED: "returned",
  DEPOSIT: "deposited",
  CORRECTION: "corrected",
};
