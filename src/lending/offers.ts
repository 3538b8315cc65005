// Loan offers: an offer holds the lender's amount in escrow until it is taken (src/lending/service.ts:
// borrow), cancelled, or EXPIRES at expiresAt (amount back). Creating one is an outflow checked when it
// begins (LOAN_OFFER, the amount). The expiry runs in a job (src/due.ts) and on the offer a read or
// action touches.
import { clock, iso } from "../clock";
import { find, insert, newestFirst, update, type PageWindow, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { type AgentId, prefixedId } from "../ids";
import { committingKeyId, untilCommittingKeyEnds } from "../keys/service";
import { expireHold, hold, pendingHold, voidHold } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { authorizeOutflow, NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { HOUR_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { loanOffers } from "./schema";

export type Offer = Row<typeof loanOffers>;

/** A percentage with at most 2 decimals, as an integer of hundredths (5.25 → 525). */
export function toBps(percent: number, field: string): number {
  const bps = Math.round(percent * 100);
  if (Math.abs(bps - percent * 100) > 1e-6) throw invalid(`${field} may have at most 2 decimals`);
  return bps;
}
/** amount × bps / 10000, rounded up to the minor unit (in the lender's favour). */
export const ofBps = (amount: bigint, bps: bigint) => (amount * bps + 9999n) / 10000n;

export const offerRef = (row: { id: string }) => ({ type: "loan_offer", id: row.id });

export function offerView(row: Offer) {
  return {
    id: row.id,
    lenderId: row.lenderId,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    interestRate: Number(row.interestBps) / 100,
    durationDays: Number(row.durationDays),
    collateralPercent: Number(row.collateralBps) / 100,
    collateralRequired: toMajor(ofBps(row.amount, row.collateralBps), row.currency),
    amountDue: toMajor(row.amount + ofBps(row.amount, row.interestBps), row.currency),
    status: row.status,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

/** The offer's status changes; updatedAt with it. */
export const setOfferStatus = (row: Offer, status: string) => update(loanOffers, row.id, { status, updatedAt: clock.nowMs() });

/** A write op: an OPEN offer past expiresAt becomes EXPIRED and its amount returns to the lender. */
export function* expireOfferIfDue(row: Offer): Op<Offer> {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  yield* expireHold(yield* pendingHold(offerRef(row), row.lenderId));
  const next = yield* setOfferStatus(row, "EXPIRED");
  yield* notifyFinancial(row.lenderId, "loan_offer.expired", { offerId: row.id, amount: toMajor(row.amount, row.currency), currency: row.currency }, "Your loan offer expired; the amount is back in your balance");
  return next;
}

/** What createOffer answers: short of money to hold, or refused by the outflow check. */
export const CREATE_OFFER_ERRORS = ["INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* createOffer(
  lenderId: AgentId,
  body: { amount: number; currency: Currency; interestRate: number; durationDays: number; collateralPercent: number; expiresInHours?: number },
  sanction: Sanction = NO_SANCTION,
) {
  const amount = toMinor(body.amount, body.currency);
  const interestBps = toBps(body.interestRate, "interestRate");
  const collateralBps = toBps(body.collateralPercent, "collateralPercent");
  yield* authorizeOutflow({ agentId: lenderId, kind: "LOAN_OFFER", amount, currency: body.currency, counterpartyId: null, terms: body }, sanction);
  const now = clock.nowMs();
  const row = yield* insert(loanOffers, {
    id: prefixedId("lo"),
    lenderId,
    amount,
    currency: body.currency,
    interestBps,
    durationDays: body.durationDays,
    collateralBps,
    status: "OPEN",
    // Made with a restricted key, it stays open no longer than the key does (keys/commitments.ts).
    expiresAt: yield* untilCommittingKeyEnds(now + Math.round((body.expiresInHours ?? 168) * HOUR_MS)),
    keyId: yield* committingKeyId(),
    createdAt: now,
    updatedAt: now,
  });
  yield* hold({ agentId: lenderId, amount, currency: body.currency, purpose: "LOAN_OFFER", reference: offerRef(row) });
  return offerView(row);
}

export function* cancelOffer(lenderId: AgentId, id: string) {
  const found = yield* find(loanOffers, id, true);
  if (!found || found.lenderId !== lenderId) throw notFound("loan offer");
  const row = yield* expireOfferIfDue(found);
  if (row.status !== "OPEN") throw invalidState(`the offer is ${row.status}`);
  yield* voidHold(yield* pendingHold(offerRef(row), lenderId));
  yield* notifyFinancial(lenderId, "loan_offer.cancelled", { offerId: row.id, amount: toMajor(row.amount, row.currency), currency: row.currency }, "Your loan offer was cancelled; the amount is back in your balance");
  return offerView(yield* setOfferStatus(row, "CANCELLED"));
}

const dueOffers: DueWork = {
  name: "lending.offers-expire",
  table: "loan_offers",
  where: "status = 'OPEN'",
  dueColumn: "expires_at",
  apply: function* (id) {
    const row = yield* find(loanOffers, id, true);
    return row !== null && (yield* expireOfferIfDue(row)) !== row;
  },
};

/**
 * Before an action on one offer: its due expiry committed in an op of its own (a read, and a
 * write only if due), so an action refused because the offer is past due leaves it stored as such.
 */
export const applyOfferDue = (id: string) => applyIfDue(dueOffers, id);

/** The job: every due offer expires. */
export const expireDueOffers = () => applyDue(dueOffers);

/** One of the lender's own offers (applyOfferDue first); 404 for anyone else's (existence not revealed). */
export function* lenderOffer(lenderId: AgentId, id: string) {
  const row = yield* find(loanOffers, id);
  if (!row || row.lenderId !== lenderId) throw notFound("loan offer");
  return offerView(row);
}

const openOffersScope = (lenderId: AgentId) => ({ where: "lender_id = ? AND status = 'OPEN'", params: [lenderId] });

/** Before the lender's open offers are listed: the due ones expire. */
export const expireDueOffersOf = (lenderId: AgentId) => applyDue(dueOffers, openOffersScope(lenderId));

/** The lender's own OPEN offers (the owner's console lists them to withdraw; expireDueOffersOf first). */
export function* openOffersOf(lenderId: AgentId, window: PageWindow) {
  return yield* newestFirst({ table: loanOffers, scope: openOffersScope(lenderId) }, window, offerView);
}

/** OPEN offers not yet past their expiry (the expiry job marks those soon; none is shown meanwhile). */
export function* listOffers(filter: { currency?: Currency }, window: PageWindow) {
  const narrow = filter.currency ? { where: "currency = ?", params: [filter.currency] } : undefined;
  const scope = { where: "status = 'OPEN' AND expires_at > ?", params: [clock.nowMs()] };
  return yield* newestFirst({ table: loanOffers, scope, narrow }, window, offerView);
}
