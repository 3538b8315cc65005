// agentbank's minimum settlement, for every scheme: a sale of 0 (or of dust) costs the treasury a
// settlement's gas for nothing (X402_FACILITATOR_MIN_AMOUNT).
import { config } from "../../config";
import { toMajor } from "../../money";
import { refuse, type Refusal } from "./schemes";

/** A refusal with `reason` if `amount` is below the minimum; null if it is not. */
export function belowMinimum(amount: bigint, reason: string): Refusal | null {
  if (amount >= config.x402FacilitatorMinAmount) return null;
  const minimum = toMajor(config.x402FacilitatorMinAmount, "USDC");
  return refuse(reason, `${toMajor(amount, "USDC")} USDC is below this facilitator's minimum payment of ${minimum} USDC (X402_FACILITATOR_MIN_AMOUNT)`);
}
