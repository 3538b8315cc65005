// Lending: an offer holds the lender's amount in escrow; borrowing holds the borrower's collateral
// and pays the principal out of the lender's escrow; repayments go to the lender, and full repayment
// returns the collateral. OPEN offers EXPIRE (amount back), ACTIVE loans DEFAULT at dueAt
// (collateral to the lender). Due transitions run in a job and before every read or action.
import { and, desc, eq, lte, or, sql, type SQL } from "drizzle-orm";
import { assertNotBlockedBy } from "../agents/blocks";
import { findAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { db, write } from "../db";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { hold, release } from "../ledger/escrow";
import { transfer } from "../ledger/transfers";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../reputation/score";
import { assertWithinTier } from "../reputation/tiers";
import { notifyFinancial } from "../webhooks/outbox";
import { loanOffers, loans } from "./schema";

type OfferRow = typeof loanOffers.$inferSelect;
type LoanRow = typeof loans.$inferSelect;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

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

const findOffer = (id: string) => db.select().from(loanOffers).where(eq(loanOffers.id, id)).get();
const findLoan = (id: string) => db.select().from(loans).where(eq(loans.id, id)).get();
const offerRef = (row: { id: string }) => ({ type: "loan_offer", id: row.id });
const loanRef = (row: { id: string }) => ({ type: "loan", id: row.id });

function setOffer(row: OfferRow, changes: Partial<OfferRow>): OfferRow {
  const next = { ...row, ...changes, updatedAt: clock.nowMs() };
  db.update(loanOffers).set(next).where(eq(loanOffers.id, row.id)).run();
  return next;
}

function setLoan(row: LoanRow, changes: Partial<LoanRow>): LoanRow {
  const next = { ...row, ...changes };
  db.update(loans).set(next).where(eq(loans.id, row.id)).run();
  return next;
}

/** Inside write(): an OPEN offer past expiresAt becomes EXPIRED and its amount returns to the lender. */
function expireOfferIfDue(row: OfferRow): OfferRow {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  release({ holder: row.lenderId, to: row.lenderId, amount: row.amount, currency: row.currency as Currency, reference: offerRef(row) });
  const next = setOffer(row, { status: "EXPIRED" });
  notifyFinancial(row.lenderId, "loan_offer.expired", { offerId: row.id, amount: toMajor(row.amount, row.currency as Currency), currency: row.currency }, "Your loan offer expired; the amount is back in your balance");
  return next;
}

/** Inside write(): an ACTIVE loan past dueAt defaults: collateral to the lender, −10 to the borrower. */
function defaultLoanIfDue(row: LoanRow): LoanRow {
  if (row.status !== "ACTIVE" || row.dueAt > clock.nowMs()) return row;
  const currency = row.currency as Currency;
  if (row.collateral > 0n) release({ holder: row.borrowerId, to: row.lenderId, amount: row.collateral, currency, reference: loanRef(row) });
  adjustScore(row.borrowerId, "LOAN_DEFAULT", loanRef(row));
  const next = setLoan(row, { status: "DEFAULTED", closedAt: clock.nowMs() });
  const data = { loanId: row.id, outstanding: toMajor(row.amountDue - row.amountRepaid, currency), collateral: toMajor(row.collateral, currency), currency };
  notifyFinancial(row.lenderId, "loan.defaulted", data, "A loan you made defaulted; its collateral is yours");
  notifyFinancial(row.borrowerId, "loan.defaulted", data, "Your loan defaulted; the collateral went to the lender");
  return next;
}

export function createOffer(
  lenderId: string,
  body: { amount: number; currency: Currency; interestRate: number; durationDays: number; collateralPercent: number; expiresInHours?: number },
) {
  const amount = toMinor(body.amount, body.currency);
  const interestBps = toBps(body.interestRate, "interestRate");
  const collateralBps = toBps(body.collateralPercent, "collateralPercent");
  assertWithinTier(Number(findAgent(lenderId)!.score), amount, body.currency);
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
  db.insert(loanOffers).values(row).run();
  hold(lenderId, amount, body.currency, offerRef(row));
  return offerView(row);
}

export function cancelOffer(lenderId: string, id: string) {
  const found = findOffer(id);
  if (!found || found.lenderId !== lenderId) throw notFound("loan offer");
  const row = expireOfferIfDue(found);
  if (row.status !== "OPEN") throw invalidState(`the offer is ${row.status}`);
  const currency = row.currency as Currency;
  release({ holder: lenderId, to: lenderId, amount: row.amount, currency, reference: offerRef(row) });
  notifyFinancial(lenderId, "loan_offer.cancelled", { offerId: row.id, amount: toMajor(row.amount, currency), currency }, "Your loan offer was cancelled; the amount is back in your balance");
  return offerView(setOffer(row, { status: "CANCELLED" }));
}

export function borrow(borrowerId: string, body: { offerId: string; collateral?: number }) {
  const found = findOffer(body.offerId);
  if (!found) throw notFound("loan offer");
  const offer = expireOfferIfDue(found);
  if (offer.lenderId === borrowerId) throw invalid("you cannot borrow from your own offer");
  assertNotBlockedBy(offer.lenderId, borrowerId);
  if (offer.status !== "OPEN") throw invalidState(`the offer is ${offer.status}`);
  const currency = offer.currency as Currency;
  const collateral = ofBps(offer.amount, offer.collateralBps);
  if (body.collateral !== undefined && toMinor(body.collateral, currency, "collateral") !== collateral) {
    throw invalid(`this offer requires a collateral of exactly ${toMajor(collateral, currency)} ${currency}`);
  }
  const now = clock.nowMs();
  const row: LoanRow = {
    id: prefixedId("loan"),
    offerId: offer.id,
    lenderId: offer.lenderId,
    borrowerId,
    principal: offer.amount,
    currency,
    interestBps: offer.interestBps,
    amountDue: offer.amount + ofBps(offer.amount, offer.interestBps),
    amountRepaid: 0n,
    collateral,
    dueAt: now + offer.durationDays * DAY_MS,
    status: "ACTIVE",
    createdAt: now,
    closedAt: null,
  };
  db.insert(loans).values(row).run();
  if (collateral > 0n) hold(borrowerId, collateral, currency, loanRef(row));
  release({ holder: offer.lenderId, to: borrowerId, amount: offer.amount, currency, reference: loanRef(row), historyType: "LOAN_DISBURSED" });
  setOffer(offer, { status: "TAKEN" });
  const data = { loanId: row.id, offerId: offer.id, principal: toMajor(row.principal, currency), amountDue: toMajor(row.amountDue, currency), collateral: toMajor(collateral, currency), currency, dueAt: iso(row.dueAt) };
  notifyFinancial(offer.lenderId, "loan.taken", { ...data, borrowerId }, `Your loan offer was taken: ${data.principal} ${currency}`);
  notifyFinancial(borrowerId, "loan.disbursed", { ...data, lenderId: offer.lenderId }, `Loan received: ${data.principal} ${currency}, due ${data.dueAt}`);
  return loanView(row);
}

export function repay(borrowerId: string, loanId: string, amountMajor: number) {
  const found = findLoan(loanId);
  if (!found || found.borrowerId !== borrowerId) throw notFound("loan");
  const row = defaultLoanIfDue(found);
  if (row.status !== "ACTIVE") throw invalidState(`the loan is ${row.status}`);
  const currency = row.currency as Currency;
  const amount = toMinor(amountMajor, currency);
  const outstanding = row.amountDue - row.amountRepaid;
  if (amount > outstanding) throw invalid(`the outstanding amount is ${toMajor(outstanding, currency)} ${currency}`);
  transfer({ from: borrowerId, to: row.lenderId, amount, currency, reference: loanRef(row), entryType: "LOAN_REPAYMENT", sentAs: "LOAN_REPAYMENT", receivedAs: "LOAN_REPAYMENT" });
  const repaid = row.amountRepaid + amount;
  const full = repaid === row.amountDue;
  if (full) {
    if (row.collateral > 0n) release({ holder: borrowerId, to: borrowerId, amount: row.collateral, currency, reference: loanRef(row) });
    adjustScore(borrowerId, "LOAN_REPAID_ON_TIME", loanRef(row));
  }
  const next = setLoan(row, { amountRepaid: repaid, ...(full ? { status: "REPAID", closedAt: clock.nowMs() } : {}) });
  const data = { loanId: row.id, amount: toMajor(amount, currency), outstanding: toMajor(row.amountDue - repaid, currency), currency, status: next.status };
  notifyFinancial(row.lenderId, full ? "loan.repaid" : "loan.repayment", data, full ? "A loan you made was repaid in full" : `Loan repayment received: ${data.amount} ${currency}`);
  notifyFinancial(borrowerId, full ? "loan.repaid" : "loan.repayment", data, full ? "Loan repaid in full; your collateral is back" : `Repayment made: ${data.amount} ${currency}`);
  return loanView(next);
}

const dueOffers = (now: number) => and(eq(loanOffers.status, "OPEN"), lte(loanOffers.expiresAt, now));
const dueLoans = (now: number) => and(eq(loans.status, "ACTIVE"), lte(loans.dueAt, now));

/** Inside write(): expires up to `batch` due offers and defaults up to `batch` due loans; returns how many. */
function applyDue(batch: number): number {
  const now = clock.nowMs();
  const offers = db.select().from(loanOffers).where(dueOffers(now)).limit(batch).all();
  const due = db.select().from(loans).where(dueLoans(now)).limit(batch).all();
  for (const row of offers) expireOfferIfDue(row);
  for (const row of due) defaultLoanIfDue(row);
  return Math.max(offers.length, due.length);
}

/** The job, also run before every read and action so no one sees or acts on a stale offer or loan. */
export async function settleDueLending(): Promise<void> {
  const BATCH = 200;
  const isDue = () => {
    const now = clock.nowMs();
    return db.select({ id: loanOffers.id }).from(loanOffers).where(dueOffers(now)).limit(1).get() ?? db.select({ id: loans.id }).from(loans).where(dueLoans(now)).limit(1).get();
  };
  while (isDue()) {
    if ((await write(() => applyDue(BATCH))) < BATCH) return;
  }
}

export async function listOffers(filter: { currency?: Currency; limit: number; offset: number }) {
  await settleDueLending();
  const conditions: SQL[] = [eq(loanOffers.status, "OPEN")];
  if (filter.currency) conditions.push(eq(loanOffers.currency, filter.currency));
  const where = and(...conditions);
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(loanOffers).where(where).get()!.n;
  const rows = db.select().from(loanOffers).where(where).orderBy(desc(loanOffers.createdAt), desc(loanOffers.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(offerView), total };
}

export async function myLoans(agentId: string, filter: { role?: "lender" | "borrower"; limit: number; offset: number }) {
  await settleDueLending();
  const where =
    filter.role === "lender" ? eq(loans.lenderId, agentId) : filter.role === "borrower" ? eq(loans.borrowerId, agentId) : or(eq(loans.lenderId, agentId), eq(loans.borrowerId, agentId))!;
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(loans).where(where).get()!.n;
  const rows = db.select().from(loans).where(where).orderBy(desc(loans.createdAt), desc(loans.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(loanView), total };
}

export async function getLoan(agentId: string, id: string) {
  await settleDueLending();
  const row = findLoan(id);
  if (!row || (row.lenderId !== agentId && row.borrowerId !== agentId)) throw notFound("loan");
  return loanView(row);
}
