// Reputation tiers (SPEC.md) and the per-transaction limit that follows from the score.
import { config } from "../config";
import { ApiError } from "../errors";
import { toMajor, usdValueExceeds, type Currency } from "../money";

export const TIERS = [
  { tier: "UNRATED", minScore: Number.NEGATIVE_INFINITY, maxPerTransaction: 100 },
  { tier: "BRONZE", minScore: 5, maxPerTransaction: 500 },
  { tier: "SILVER", minScore: 20, maxPerTransaction: 1000 },
  { tier: "GOLD", minScore: 50, maxPerTransaction: 1000 },
  { tier: "PLATINUM", minScore: 100, maxPerTransaction: 1000 },
] as const;

export type Tier = (typeof TIERS)[number]["tier"];

export function tierOf(score: number): (typeof TIERS)[number] {
  let current: (typeof TIERS)[number] = TIERS[0];
  for (const tier of TIERS) if (score >= tier.minScore) current = tier;
  return current;
}

/** Throws 403 TIER_LIMIT_EXCEEDED when the amount's USD value is above the score's tier limit. */
export function assertWithinTier(score: number, amountMinor: bigint, currency: Currency): void {
  const { tier, maxPerTransaction } = tierOf(score);
  if (usdValueExceeds(amountMinor, currency, config.referenceRates[currency]!, String(maxPerTransaction))) {
    throw new ApiError(
      "TIER_LIMIT_EXCEEDED",
      `${toMajor(amountMinor, currency)} ${currency} is above the ${tier} limit of ${maxPerTransaction} USD per transaction`,
    );
  }
}
