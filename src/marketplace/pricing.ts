// What a quote costs: the listing's price times the units its pricing unit counts, exact in minor units.
import { invalid } from "../errors";
import { toMajor, type Currency } from "../money";
import type { PricingUnit, QuoteUnits } from "./schema";


const NEEDS: Record<PricingUnit, (keyof QuoteUnits)[]> = {
  FIXED: [],
  PER_HOUR: ["hours"],
  PER_NIGHT: ["nights"],
  PER_GUEST: ["guests"],
  PER_GUEST_NIGHT: ["guests", "nights"],
};

export const UNIT_LIMITS: Record<keyof QuoteUnits, number> = { nights: 365, guests: 1000, hours: 10_000 };

/** Checks that exactly the units the pricing unit counts are given, and prices them. */
export function price(unitPrice: bigint, currency: Currency, pricingUnit: PricingUnit, units: QuoteUnits) {
  const needed = NEEDS[pricingUnit];
  for (const name of Object.keys(UNIT_LIMITS) as (keyof QuoteUnits)[]) {
    const given = units[name] !== undefined;
    if (needed.includes(name) && !given) throw invalid(`${name} is required for a ${pricingUnit} service`);
    if (!needed.includes(name) && given) throw invalid(`${name} does not apply to a ${pricingUnit} service`);
  }
  const quantity = needed.reduce((product, name) => product * BigInt(units[name]!), 1n);
  const amount = unitPrice * quantity;
  if (toMajor(amount, currency) > 1e9) throw invalid("the quote would exceed 1,000,000,000");
  const factors = [`${toMajor(unitPrice, currency)} ${currency}`, ...needed.map((name) => `${units[name]} ${name}`)];
  return {
    amount,
    breakdown: {
      unitPrice: toMajor(unitPrice, currency),
      pricingUnit,
      units: Object.fromEntries(needed.map((name) => [name, units[name]])),
      quantity: Number(quantity),
      amount: toMajor(amount, currency),
      currency,
      formula: `${factors.join(" × ")} = ${toMajor(amount, currency)} ${currency}`,
    },
  };
}
