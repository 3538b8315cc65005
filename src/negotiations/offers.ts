// What an offer on a negotiation may be and what it weighs: its bounds, the check of a numeric amount,
// whether accepting it needs an owner (its USD value above the threshold), and the hash an owner's
// approval binds to.
import { config } from "../config";
import { invalid } from "../errors";
import { sha256Hex } from "../ids";
import { canonicalJson } from "../json";
import { CURRENCIES, toMinor, usdValueExceeds, type Currency } from "../money";
import type { Offer } from "./schema";

export const MAX_OFFER_BYTES = 16 * 1024;
export const MAX_OFFER_DEPTH = 10;

/** Checks a numeric `amount` against its `currency` (default USDC); size and depth are bounded by the route's schema. */
export function checkOffer(offer: Offer): void {
  if (offer.currency !== undefined && !(CURRENCIES as readonly unknown[]).includes(offer.currency)) {
    throw invalid(`offer.currency must be one of ${CURRENCIES.join(", ")}`);
  }
  if (offer.amount !== undefined) {
    if (typeof offer.amount !== "number") throw invalid("offer.amount must be a number");
    toMinor(offer.amount, (offer.currency as Currency | undefined) ?? "USDC", "offer.amount");
  }
}

/** An offer's amount, if it names one: what the threshold and the owner weigh. */
export function offerAmount(offer: Offer): { amount: number; currency: Currency } | null {
  if (typeof offer.amount !== "number") return null;
  return { amount: offer.amount, currency: (offer.currency as Currency | undefined) ?? "USDC" };
}

/** Does accepting this offer need a human? Its amount's USD value is above the threshold. */
export function needsHuman(offer: Offer): boolean {
  const named = offerAmount(offer);
  if (!named) return false;
  const { amount, currency } = named;
  return usdValueExceeds(toMinor(amount, currency, "offer.amount"), currency, config.referenceRates[currency]!, config.negotiationApprovalThreshold);
}

/** Canonical JSON (sorted keys), so the approval hash does not depend on key order. */
export const offerHash = (offer: Offer) => sha256Hex(canonicalJson(offer));
