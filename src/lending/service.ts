// Loans: borrowing takes an OPEN offer (src/lending/offers.ts): it holds the borrower's collateral and
// pays the principal out of the lender's escrow; repayments go to the lender, and full repayment
// returns the collateral. ACTIVE loans DEFAULT at dueAt (collateral to the lender), in a job (src/due.ts)
// and on the loan a read or action touches. The borrow is an outflow checked when it begins
// (LOAN_BORROW, principal + interest to the lender); repayment and default settle it.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso, isoOrNull } from "../clock";
import { find, insert, newestFirst, update, type PageWindow, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { type AgentId, type LoanId, prefixedId } from "../ids";
import { hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { transfer } from "../ledger/transfers";
import { toMajor, toMinor } from "../money";
import { adjustScore } from "../agents/score";
import { committingKeyId } from "../keys/service";
import { authorizeRelease } from "../outflows/release";
import { authorizeOutflow, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { KEY_SPEND_ERRORS } from "../outflows/budget";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { expireOfferIfDue, ofBps, offerRef, setOfferStatus } from "./offers";
import { loanOffers, loans } from "./schema";

type Loan = Row<typeof loans>;

export function loanView(row: Loan) {
  return {
    id: row.id,
    offerId: row.offerId,
    lenderId: row.lenderId,
    borrowerId: row.borrowerId,
    principal: toMajor(row.principal, row.currency),
    currency: row.currency,
    interestRate: Number(row.interestBps) / 100,
    amountDue: toMajor(row.amountDue, row.currency),
    amountRepaid: toMajor(row.amountRepaid, row.currency),
    outstanding: toMajor(row.amountDue - row.amountRepaid, row.currency),
    collateral: toMajor(row.collateral, row.currency),
    dueAt: iso(row.dueAt),
    status: row.status,
    createdAt: iso(row.createdAt),
    closedAt: isoOrNull(row.closedAt),
  };
}

const loanRef = (row: { id: string }) => ({ type: "loan", id: row.id });

/**
 * A write op: an ACTIVE loan past dueAt defaults: collateral to the lender, −10 to the borrower. Not
 * checked again: it settles the borrow (LOAN_BORROW), and what the borrower loses net, collateral
 * minus the principal it kept (at most 200 % − 100 %), is never above the principal + interest checked.
 */
function* defaultLoanIfDue(row: Loan): Op<Loan> {
  if (row.status !== "ACTIVE" || row.dueAt > clock.nowMs()) return row;
  const currency = row.currency;
  if (row.collateral > 0n) yield* postHold(yield* pendingHold(loanRef(row), row.borrowerId), row.lenderId);
  yield* adjustScore(row.borrowerId, "LOAN_DEFAULT", loanRef(row));
  const next = yield* update(loans, row.id, { status: "DEFAULTED", closedAt: clock.nowMs() });
  const data = { loanId: row.id, outstanding: toMajor(row.amountDue - row.amountRepaid, currency), collateral: toMajor(row.collateral, currency), currency };
  yield* notifyFinancial(row.lenderId, "loan.defaulted", data, "A loan you made defaulted; its collateral is yours");
  yield* notifyFinancial(row.borrowerId, "loan.defaulted", data, "Your loan defaulted; the collateral went to the lender");
  return next;
}

/**
 * Borrowing commits the borrower to pay principal + interest to the lender (by repaying, or through
 * its collateral): it is an outflow to the lender of that amount, checked here once. Held for the
 * owner, it holds only the collateral — what the borrower's own money puts at risk now.
 */
/** What borrow answers: the offer unknown, one's own or taken, the lender blocking the borrower, short of collateral, or refused by the outflow check. */
export const BORROW_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* borrow(borrowerId: AgentId, body: { offerId: string; collateral?: number }, sanction: Sanction = {}) {
  const found = yield* find(loanOffers, body.offerId, true);
  if (!found) throw notFound("loan offer");
  const offer = yield* expireOfferIfDue(found);
  if (offer.lenderId === borrowerId) throw invalid("you cannot borrow from your own offer");
  yield* assertNotBlockedBy(offer.lenderId, borrowerId);
  if (offer.status !== "OPEN") throw invalidState(`the offer is ${offer.status}`);
  const currency = offer.currency;
  const collateral = ofBps(offer.amount, offer.collateralBps);
  if (body.collateral !== undefined && toMinor(body.collateral, currency, "collateral") !== collateral) {
    throw invalid(`this offer requires a collateral of exactly ${toMajor(collateral, currency)} ${currency}`);
  }
  const amountDue = offer.amount + ofBps(offer.amount, offer.interestBps);
  yield* authorizeOutflow({ agentId: borrowerId, kind: "LOAN_BORROW", amount: amountDue, currency, counterpartyId: offer.lenderId, terms: body, held: collateral }, sanction);
  const now = clock.nowMs();
  const row = yield* insert(loans, {
    id: prefixedId("loan") as LoanId, // where a loan's id is born
    offerId: offer.id,
    lenderId: offer.lenderId,
    borrowerId,
    principal: offer.amount,
    currency,
    interestBps: offer.interestBps,
    amountDue,
    amountRepaid: 0n,
    collateral,
    dueAt: now + Number(offer.durationDays) * DAY_MS,
    status: "ACTIVE",
    keyId: yield* committingKeyId(),
    createdAt: now,
  });
  if (collateral > 0n) yield* hold({ agentId: borrowerId, amount: collateral, currency, purpose: "LOAN_COLLATERAL", reference: loanRef(row) });
  yield* postHold(yield* pendingHold(offerRef(offer), offer.lenderId), borrowerId, { reference: loanRef(row), historyType: "LOAN_DISBURSED" });
  yield* setOfferStatus(offer, "TAKEN");
  const data = { loanId: row.id, offerId: offer.id, principal: toMajor(row.principal, currency), amountDue: toMajor(row.amountDue, currency), collateral: toMajor(collateral, currency), currency, dueAt: iso(row.dueAt) };
  yield* notifyFinancial(offer.lenderId, "loan.taken", { ...data, borrowerId }, `Your loan offer was taken: ${data.principal} ${currency}`);
  yield* notifyFinancial(borrowerId, "loan.disbursed", { ...data, lenderId: offer.lenderId }, `Loan received: ${data.principal} ${currency}, due ${data.dueAt}`);
  return loanView(row);
}

/**
 * Not checked again by the owner's policy: it settles the borrow, checked (or approved) as LOAN_BORROW
 * for the whole amount due. A restricted key that repays and did not make the borrow pays it as its own
 * outflow to the lender (authorizeRelease).
 */
/** What repay answers: the loan unknown or not active, short of money, or (a restricted key's repayment) its limits. A frozen agent may repay. */
export const REPAY_ERRORS = ["NOT_FOUND", "INVALID_STATE", "INSUFFICIENT_BALANCE", ...KEY_SPEND_ERRORS] as const satisfies readonly ErrorCode[];

export function* repay(borrowerId: AgentId, loanId: LoanId, amountMajor: number) {
  const found = yield* find(loans, loanId, true);
  if (!found || found.borrowerId !== borrowerId) throw notFound("loan");
  const row = yield* defaultLoanIfDue(found);
  if (row.status !== "ACTIVE") throw invalidState(`the loan is ${row.status}`);
  const currency = row.currency;
  const amount = toMinor(amountMajor, currency);
  const outstanding = row.amountDue - row.amountRepaid;
  if (amount > outstanding) throw invalid(`the outstanding amount is ${toMajor(outstanding, currency)} ${currency}`);
  yield* authorizeRelease({ kind: "LOAN_REPAYMENT", agentId: borrowerId, amount, currency, counterpartyId: row.lenderId, madeBy: row.keyId });
  yield* transfer({ from: borrowerId, to: row.lenderId, amount, currency, reference: loanRef(row), entryType: "LOAN_REPAYMENT", sentAs: "LOAN_REPAYMENT", receivedAs: "LOAN_REPAYMENT" });
  const repaid = row.amountRepaid + amount;
  const full = repaid === row.amountDue;
  if (full) {
    if (row.collateral > 0n) yield* voidHold(yield* pendingHold(loanRef(row), borrowerId));
    yield* adjustScore(borrowerId, "LOAN_REPAID_ON_TIME", loanRef(row));
  }
  const next = yield* update(loans, row.id, { amountRepaid: repaid, ...(full ? { status: "REPAID", closedAt: clock.nowMs() } : {}) });
  const data = { loanId: row.id, amount: toMajor(amount, currency), outstanding: toMajor(row.amountDue - repaid, currency), currency, status: next.status };
  yield* notifyFinancial(row.lenderId, full ? "loan.repaid" : "loan.repayment", data, full ? "A loan you made was repaid in full" : `Loan repayment received: ${data.amount} ${currency}`);
  yield* notifyFinancial(borrowerId, full ? "loan.repaid" : "loan.repayment", data, full ? "Loan repaid in full; your collateral is back" : `Repayment made: ${data.amount} ${currency}`);
  return loanView(next);
}

const dueLoans: DueWork<LoanId> = {
  name: "lending.loans-default",
  table: "loans",
  where: "status = 'ACTIVE'",
  dueColumn: "due_at",
  apply: function* (id) {
    const row = yield* find(loans, id, true);
    return row !== null && (yield* defaultLoanIfDue(row)) !== row;
  },
};

/**
 * Before an action on one loan: its due default committed in an op of its own (a read, and a
 * write only if due), so an action refused because the loan is past due leaves it stored as such.
 */
export const applyLoanDue = (id: LoanId) => applyIfDue(dueLoans, id);

/** The job: every due loan defaults; or only the caller's (as lender or borrower) before they are listed. */
export const defaultDueLoans = (agentId?: AgentId) =>
  applyDue(dueLoans, agentId === undefined ? undefined : { where: "(lender_id = ? OR borrower_id = ?)", params: [agentId, agentId] });

/** The caller's loans, as lender or borrower (the route applies their due defaults first). */
export function* myLoans(agentId: AgentId, filter: { role?: "lender" | "borrower" }, window: PageWindow) {
  const scope = { where: "(lender_id = ? OR borrower_id = ?)", params: [agentId, agentId] };
  const narrow = filter.role ? { where: filter.role === "lender" ? "lender_id = ?" : "borrower_id = ?", params: [agentId] } : undefined;
  return yield* newestFirst({ table: loans, scope, narrow }, window, loanView);
}

/** A loan the caller made or took (the route applies its due default first); 404 for anyone else. */
export function* getLoan(agentId: AgentId, id: LoanId) {
  const row = yield* find(loans, id);
  if (!row || (row.lenderId !== agentId && row.borrowerId !== agentId)) throw notFound("loan");
  return loanView(row);
}
