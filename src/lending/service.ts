// Lending: an offer holds the lender's amount in escrow; borrowing holds the borrower's collateral
// and pays the principal out of the lender's escrow; repayments go to the lender, and full repayment
// returns the collateral. OPEN offers EXPIRE (amount back), ACTIVE loans DEFAULT at dueAt
// (collateral to the lender). Due transitions run in a job (db/due.ts) and on the item a read or action touches.
// Both sides are outflows checked when they begin: the offer (LOAN_OFFER, the amount) and the borrow
// (LOAN_BORROW, principal + interest to the lender); repayment and default settle the borrow.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso } from "../clock";
import { FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../db/due";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { expireHold, hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { transfer } from "../ledger/transfers";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { authorizeOutflow, NO_SANCTION, type Sanction } from "../outflows/check";
import { DAY_MS, HOUR_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";

type OfferRow = {
  id: string;
  lenderId: string;
  amount: bigint;
  currency: string;
  interestBps: number;
  durationDays: number;
  collateralBps: number;
  status: string;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
};

type LoanRow = {
  id: string;
  offerId: string;
  lenderId: string;
  borrowerId: string;
  principal: bigint;
  currency: string;
  interestBps: number;
  amountDue: bigint;
  amountRepaid: bigint;
  collateral: bigint;
  dueAt: number;
  status: string;
  createdAt: number;
  closedAt: number | null;
};

// As stored: every INTEGER arrives as a bigint; rates, days and times are turned into numbers here.
type StoredOffer = Omit<OfferRow, "interestBps" | "durationDays" | "collateralBps" | "expiresAt" | "createdAt" | "updatedAt"> & {
  interestBps: bigint;
  durationDays: bigint;
  collateralBps: bigint;
  expiresAt: bigint;
  createdAt: bigint;
  updatedAt: bigint;
};
type StoredLoan = Omit<LoanRow, "interestBps" | "dueAt" | "createdAt" | "closedAt"> & { interestBps: bigint; dueAt: bigint; createdAt: bigint; closedAt: bigint | null };

const OFFER_COLUMNS = `id, lender_id AS lenderId, amount, currency, interest_bps AS interestBps, duration_days AS durationDays,
  collateral_bps AS collateralBps, status, expires_at AS expiresAt, created_at AS createdAt, updated_at AS updatedAt`;
const LOAN_COLUMNS = `id, offer_id AS offerId, lender_id AS lenderId, borrower_id AS borrowerId, principal, currency,
  interest_bps AS interestBps, amount_due AS amountDue, amount_repaid AS amountRepaid, collateral, due_at AS dueAt, status,
  created_at AS createdAt, closed_at AS closedAt`;

const toOffer = (row: StoredOffer): OfferRow => ({
  ...row,
  interestBps: Number(row.interestBps),
  durationDays: Number(row.durationDays),
  collateralBps: Number(row.collateralBps),
  expiresAt: Number(row.expiresAt),
  createdAt: Number(row.createdAt),
  updatedAt: Number(row.updatedAt),
});

const toLoan = (row: StoredLoan): LoanRow => ({
  ...row,
  interestBps: Number(row.interestBps),
  dueAt: Number(row.dueAt),
  createdAt: Number(row.createdAt),
  closedAt: row.closedAt === null ? null : Number(row.closedAt),
});

/** A percentage with at most 2 decimals, as an integer of hundredths (5.25 → 525). */
export function toBps(percent: number, field: string): number {
  const bps = Math.round(percent * 100);
  if (Math.abs(bps - percent * 100) > 1e-6) throw invalid(`${field} may have at most 2 decimals`);
  return bps;
}
/** amount × bps / 10000, rounded up to the minor unit (in the lender's favour). */
const ofBps = (amount: bigint, bps: number) => (amount * BigInt(bps) + 9999n) / 10000n;

export function offerView(row: OfferRow) {
  const currency = row.currency as Currency;
  return {
    id: row.id,
    lenderId: row.lenderId,
    amount: toMajor(row.amount, currency),
    currency,
    interestRate: row.interestBps / 100,
    durationDays: row.durationDays,
    collateralPercent: row.collateralBps / 100,
    collateralRequired: toMajor(ofBps(row.amount, row.collateralBps), currency),
    amountDue: toMajor(row.amount + ofBps(row.amount, row.interestBps), currency),
    status: row.status,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

export function loanView(row: LoanRow) {
  const currency = row.currency as Currency;
  return {
    id: row.id,
    offerId: row.offerId,
    lenderId: row.lenderId,
    borrowerId: row.borrowerId,
    principal: toMajor(row.principal, currency),
    currency,
    interestRate: row.interestBps / 100,
    amountDue: toMajor(row.amountDue, currency),
    amountRepaid: toMajor(row.amountRepaid, currency),
    outstanding: toMajor(row.amountDue - row.amountRepaid, currency),
    collateral: toMajor(row.collateral, currency),
    dueAt: iso(row.dueAt),
    status: row.status,
    createdAt: iso(row.createdAt),
    closedAt: row.closedAt === null ? null : iso(row.closedAt),
  };
}

/** `lock`: in a write op that changes the offer from what it read (see db/postgres.ts). */
function* findOffer(id: string, lock = false): Query<OfferRow | undefined> {
  const row = yield* get<StoredOffer>(`SELECT ${OFFER_COLUMNS} FROM loan_offers WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
  return row ? toOffer(row) : undefined;
}

function* findLoan(id: string, lock = false): Query<LoanRow | undefined> {
  const row = yield* get<StoredLoan>(`SELECT ${LOAN_COLUMNS} FROM loans WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
  return row ? toLoan(row) : undefined;
}
const offerRef = (row: { id: string }) => ({ type: "loan_offer", id: row.id });
const loanRef = (row: { id: string }) => ({ type: "loan", id: row.id });

function* setOffer(row: OfferRow, changes: Partial<OfferRow>): Query<OfferRow> {
  const next = { ...row, ...changes, updatedAt: clock.nowMs() };
  yield* run(
    `UPDATE loan_offers SET lender_id = ?, amount = ?, currency = ?, interest_bps = ?, duration_days = ?, collateral_bps = ?, status = ?,
       expires_at = ?, created_at = ?, updated_at = ? WHERE id = ?`,
    next.lenderId,
    next.amount,
    next.currency,
    next.interestBps,
    next.durationDays,
    next.collateralBps,
    next.status,
    next.expiresAt,
    next.createdAt,
    next.updatedAt,
    row.id,
  );
  return next;
}

function* setLoan(row: LoanRow, changes: Partial<LoanRow>): Query<LoanRow> {
  const next = { ...row, ...changes };
  yield* run(
    `UPDATE loans SET offer_id = ?, lender_id = ?, borrower_id = ?, principal = ?, currency = ?, interest_bps = ?, amount_due = ?,
       amount_repaid = ?, collateral = ?, due_at = ?, status = ?, created_at = ?, closed_at = ? WHERE id = ?`,
    next.offerId,
    next.lenderId,
    next.borrowerId,
    next.principal,
    next.currency,
    next.interestBps,
    next.amountDue,
    next.amountRepaid,
    next.collateral,
    next.dueAt,
    next.status,
    next.createdAt,
    next.closedAt,
    row.id,
  );
  return next;
}

function* insertOffer(row: OfferRow): Query<void> {
  yield* run(
    `INSERT INTO loan_offers (id, lender_id, amount, currency, interest_bps, duration_days, collateral_bps, status, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.lenderId,
    row.amount,
    row.currency,
    row.interestBps,
    row.durationDays,
    row.collateralBps,
    row.status,
    row.expiresAt,
    row.createdAt,
    row.updatedAt,
  );
}

function* insertLoan(row: LoanRow): Query<void> {
  yield* run(
    `INSERT INTO loans (id, offer_id, lender_id, borrower_id, principal, currency, interest_bps, amount_due, amount_repaid, collateral, due_at, status, created_at, closed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.offerId,
    row.lenderId,
    row.borrowerId,
    row.principal,
    row.currency,
    row.interestBps,
    row.amountDue,
    row.amountRepaid,
    row.collateral,
    row.dueAt,
    row.status,
    row.createdAt,
    row.closedAt,
  );
}

/** A write op: an OPEN offer past expiresAt becomes EXPIRED and its amount returns to the lender. */
function* expireOfferIfDue(row: OfferRow): Query<OfferRow> {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  yield* expireHold(yield* pendingHold(offerRef(row), row.lenderId));
  const next = yield* setOffer(row, { status: "EXPIRED" });
  yield* notifyFinancial(row.lenderId, "loan_offer.expired", { offerId: row.id, amount: toMajor(row.amount, row.currency as Currency), currency: row.currency }, "Your loan offer expired; the amount is back in your balance");
  return next;
}

/**
 * A write op: an ACTIVE loan past dueAt defaults: collateral to the lender, −10 to the borrower. Not
 * checked again: it settles the borrow (LOAN_BORROW), and what the borrower loses net, collateral
 * minus the principal it kept (at most 200 % − 100 %), is never above the principal + interest checked.
 */
function* defaultLoanIfDue(row: LoanRow): Query<LoanRow> {
  if (row.status !== "ACTIVE" || row.dueAt > clock.nowMs()) return row;
  const currency = row.currency as Currency;
  if (row.collateral > 0n) yield* postHold(yield* pendingHold(loanRef(row), row.borrowerId), row.lenderId);
  yield* adjustScore(row.borrowerId, "LOAN_DEFAULT", loanRef(row));
  const next = yield* setLoan(row, { status: "DEFAULTED", closedAt: clock.nowMs() });
  const data = { loanId: row.id, outstanding: toMajor(row.amountDue - row.amountRepaid, currency), collateral: toMajor(row.collateral, currency), currency };
  yield* notifyFinancial(row.lenderId, "loan.defaulted", data, "A loan you made defaulted; its collateral is yours");
  yield* notifyFinancial(row.borrowerId, "loan.defaulted", data, "Your loan defaulted; the collateral went to the lender");
  return next;
}

export function* createOffer(
  lenderId: string,
  body: { amount: number; currency: Currency; interestRate: number; durationDays: number; collateralPercent: number; expiresInHours?: number },
  sanction: Sanction = NO_SANCTION,
) {
  const amount = toMinor(body.amount, body.currency);
  const interestBps = toBps(body.interestRate, "interestRate");
  const collateralBps = toBps(body.collateralPercent, "collateralPercent");
  yield* authorizeOutflow({ agentId: lenderId, kind: "LOAN_OFFER", amount, currency: body.currency, counterpartyId: null, terms: body }, sanction);
  const now = clock.nowMs();
  const row: OfferRow = {
    id: prefixedId("lo"),
    lenderId,
    amount,
    currency: body.currency,
    interestBps,
    durationDays: body.durationDays,
    collateralBps,
    status: "OPEN",
    expiresAt: now + Math.round((body.expiresInHours ?? 168) * HOUR_MS),
    createdAt: now,
    updatedAt: now,
  };
  yield* insertOffer(row);
  yield* hold({ agentId: lenderId, amount, currency: body.currency, purpose: "LOAN_OFFER", reference: offerRef(row) });
  return offerView(row);
}

export function* cancelOffer(lenderId: string, id: string) {
  const found = yield* findOffer(id, true);
  if (!found || found.lenderId !== lenderId) throw notFound("loan offer");
  const row = yield* expireOfferIfDue(found);
  if (row.status !== "OPEN") throw invalidState(`the offer is ${row.status}`);
  const currency = row.currency as Currency;
  yield* voidHold(yield* pendingHold(offerRef(row), lenderId));
  yield* notifyFinancial(lenderId, "loan_offer.cancelled", { offerId: row.id, amount: toMajor(row.amount, currency), currency }, "Your loan offer was cancelled; the amount is back in your balance");
  return offerView(yield* setOffer(row, { status: "CANCELLED" }));
}

/**
 * Borrowing commits the borrower to pay principal + interest to the lender (by repaying, or through
 * its collateral): it is an outflow to the lender of that amount, checked here once. Held for the
 * owner, it holds only the collateral — what the borrower's own money puts at risk now.
 */
export function* borrow(borrowerId: string, body: { offerId: string; collateral?: number }, sanction: Sanction = {}) {
  const found = yield* findOffer(body.offerId, true);
  if (!found) throw notFound("loan offer");
  const offer = yield* expireOfferIfDue(found);
  if (offer.lenderId === borrowerId) throw invalid("you cannot borrow from your own offer");
  yield* assertNotBlockedBy(offer.lenderId, borrowerId);
  if (offer.status !== "OPEN") throw invalidState(`the offer is ${offer.status}`);
  const currency = offer.currency as Currency;
  const collateral = ofBps(offer.amount, offer.collateralBps);
  if (body.collateral !== undefined && toMinor(body.collateral, currency, "collateral") !== collateral) {
    throw invalid(`this offer requires a collateral of exactly ${toMajor(collateral, currency)} ${currency}`);
  }
  const amountDue = offer.amount + ofBps(offer.amount, offer.interestBps);
  yield* authorizeOutflow({ agentId: borrowerId, kind: "LOAN_BORROW", amount: amountDue, currency, counterpartyId: offer.lenderId, terms: body, held: collateral }, sanction);
  const now = clock.nowMs();
  const row: LoanRow = {
    id: prefixedId("loan"),
    offerId: offer.id,
    lenderId: offer.lenderId,
    borrowerId,
    principal: offer.amount,
    currency,
    interestBps: offer.interestBps,
    amountDue,
    amountRepaid: 0n,
    collateral,
    dueAt: now + offer.durationDays * DAY_MS,
    status: "ACTIVE",
    createdAt: now,
    closedAt: null,
  };
  yield* insertLoan(row);
  if (collateral > 0n) yield* hold({ agentId: borrowerId, amount: collateral, currency, purpose: "LOAN_COLLATERAL", reference: loanRef(row) });
  yield* postHold(yield* pendingHold(offerRef(offer), offer.lenderId), borrowerId, { reference: loanRef(row), historyType: "LOAN_DISBURSED" });
  yield* setOffer(offer, { status: "TAKEN" });
  const data = { loanId: row.id, offerId: offer.id, principal: toMajor(row.principal, currency), amountDue: toMajor(row.amountDue, currency), collateral: toMajor(collateral, currency), currency, dueAt: iso(row.dueAt) };
  yield* notifyFinancial(offer.lenderId, "loan.taken", { ...data, borrowerId }, `Your loan offer was taken: ${data.principal} ${currency}`);
  yield* notifyFinancial(borrowerId, "loan.disbursed", { ...data, lenderId: offer.lenderId }, `Loan received: ${data.principal} ${currency}, due ${data.dueAt}`);
  return loanView(row);
}

/** Not checked again: it settles the borrow, checked (or approved) as LOAN_BORROW for the whole amount due. */
export function* repay(borrowerId: string, loanId: string, amountMajor: number) {
  const found = yield* findLoan(loanId, true);
  if (!found || found.borrowerId !== borrowerId) throw notFound("loan");
  const row = yield* defaultLoanIfDue(found);
  if (row.status !== "ACTIVE") throw invalidState(`the loan is ${row.status}`);
  const currency = row.currency as Currency;
  const amount = toMinor(amountMajor, currency);
  const outstanding = row.amountDue - row.amountRepaid;
  if (amount > outstanding) throw invalid(`the outstanding amount is ${toMajor(outstanding, currency)} ${currency}`);
  yield* transfer({ from: borrowerId, to: row.lenderId, amount, currency, reference: loanRef(row), entryType: "LOAN_REPAYMENT", sentAs: "LOAN_REPAYMENT", receivedAs: "LOAN_REPAYMENT" });
  const repaid = row.amountRepaid + amount;
  const full = repaid === row.amountDue;
  if (full) {
    if (row.collateral > 0n) yield* voidHold(yield* pendingHold(loanRef(row), borrowerId));
    yield* adjustScore(borrowerId, "LOAN_REPAID_ON_TIME", loanRef(row));
  }
  const next = yield* setLoan(row, { amountRepaid: repaid, ...(full ? { status: "REPAID", closedAt: clock.nowMs() } : {}) });
  const data = { loanId: row.id, amount: toMajor(amount, currency), outstanding: toMajor(row.amountDue - repaid, currency), currency, status: next.status };
  yield* notifyFinancial(row.lenderId, full ? "loan.repaid" : "loan.repayment", data, full ? "A loan you made was repaid in full" : `Loan repayment received: ${data.amount} ${currency}`);
  yield* notifyFinancial(borrowerId, full ? "loan.repaid" : "loan.repayment", data, full ? "Loan repaid in full; your collateral is back" : `Repayment made: ${data.amount} ${currency}`);
  return loanView(next);
}

const dueOffers: DueWork = {
  name: "lending.offers-expire",
  table: "loan_offers",
  where: "status = 'OPEN'",
  dueColumn: "expires_at",
  apply: (id) =>
    write(function* () {
      const row = yield* findOffer(id, true);
      return row !== undefined && (yield* expireOfferIfDue(row)) !== row;
    }),
};
const dueLoans: DueWork = {
  name: "lending.loans-default",
  table: "loans",
  where: "status = 'ACTIVE'",
  dueColumn: "due_at",
  apply: (id) =>
    write(function* () {
      const row = yield* findLoan(id, true);
      return row !== undefined && (yield* defaultLoanIfDue(row)) !== row;
    }),
};

/**
 * Before an action on one offer: its due expiry committed in an op of its own (a read, and a
 * write only if due), so an action refused because the offer is past due leaves it stored as such.
 */
export const applyOfferDue = (id: string) => applyIfDue(dueOffers, id);
/**
 * Before an action on one loan: its due default committed in an op of its own (a read, and a
 * write only if due), so an action refused because the loan is past due leaves it stored as such.
 */
export const applyLoanDue = (id: string) => applyIfDue(dueLoans, id);

/** The jobs: every due offer expires, every due loan defaults. */
export const expireDueOffers = () => applyDue(dueOffers);
/** Every due loan, or only the caller's (as lender or borrower) before they are listed. */
export const defaultDueLoans = (agentId?: string) =>
  applyDue(dueLoans, agentId === undefined ? undefined : { where: "(lender_id = ? OR borrower_id = ?)", params: [agentId, agentId] });

/** OPEN offers not yet past their expiry (the expiry job marks those soon; none is shown meanwhile). */
export async function listOffers(filter: { currency?: Currency }, window: PageWindow) {
  const narrow = filter.currency ? { where: "currency = ?", params: [filter.currency] } : undefined;
  const list = { table: "loan_offers", columns: OFFER_COLUMNS, scope: { where: "status = 'OPEN' AND expires_at > ?", params: [clock.nowMs()] }, narrow };
  return read(newestFirst(list, window, (row: StoredOffer) => offerView(toOffer(row))));
}

export async function myLoans(agentId: string, filter: { role?: "lender" | "borrower" }, window: PageWindow) {
  await defaultDueLoans(agentId);
  const scope = { where: "(lender_id = ? OR borrower_id = ?)", params: [agentId, agentId] };
  const narrow = filter.role ? { where: filter.role === "lender" ? "lender_id = ?" : "borrower_id = ?", params: [agentId] } : undefined;
  return read(newestFirst({ table: "loans", columns: LOAN_COLUMNS, scope, narrow }, window, (row: StoredLoan) => loanView(toLoan(row))));
}

export async function getLoan(agentId: string, id: string) {
  await applyIfDue(dueLoans, id);
  const row = await read(findLoan(id));
  if (!row || (row.lenderId !== agentId && row.borrowerId !== agentId)) throw notFound("loan");
  return loanView(row);
}
