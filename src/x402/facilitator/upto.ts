// The upto scheme's checks (Permit2 PermitWitnessTransferFrom through the official x402 upto proxy),
// after schemes.ts read the payment and verify.ts checked what every scheme shares: the official upto
// facilitator's checks and reasons, in its order (@x402/evm upto/facilitator), with the payer's
// balance, Permit2 allowance and nonce read instead of a simulation, and agentbank's minimum amount.
// At verify the requirements' amount is the most the buyer permits (it must equal permitted.amount);
// at settle it is what the seller settles, at most that.
import { getAddress } from "viem";
import { chainSettings, usdcBalanceOf } from "../../chain/client";
import { chainNowSeconds } from "../../chain/eip3009";
import { treasuryAccount } from "../../chain/keys";
import { permit2Allowance, permit2NonceUsed, signedByOwner, UPTO_PROXY_ADDRESS, uptoProxyDeployed } from "../../chain/permit2";
import { findSale } from "../../chain/sales";
import { read } from "../../db";
import { belowMinimum } from "./amounts";
import { VALID_BEFORE_MARGIN_SECONDS } from "./exact";
import type { Requirements } from "./model";
import { refuse, type Refusal, type UptoPayment } from "./schemes";

/** agentbank's reason for an amount below X402_FACILITATOR_MIN_AMOUNT (the official facilitator has none). */
const BELOW_MINIMUM = "invalid_upto_evm_amount_below_minimum";

/**
 * What upto checks of the payment; the amount it settles if it passes (`settling`: the requirements'
 * amount, at most the permitted one; else the permitted one, which the requirements must name).
 */
export async function checkUpto(payment: UptoPayment, required: Requirements, settling: boolean): Promise<bigint | Refusal> {
  const { permit, signature, payer } = payment;
  if (permit.spender !== getAddress(UPTO_PROXY_ADDRESS)) return refuse("invalid_permit2_spender", `the permit's spender must be the x402 upto proxy ${UPTO_PROXY_ADDRESS}`);
  if (permit.witness.to !== getAddress(required.payTo)) return refuse("invalid_permit2_recipient_mismatch", "the permit's witness pays another address than payTo");
  if (permit.witness.facilitator !== treasuryAccount().address) return refuse("upto_facilitator_mismatch", `the permit names another facilitator than this one (${treasuryAccount().address})`);
  const now = await chainNowSeconds();
  if (permit.deadline < now + VALID_BEFORE_MARGIN_SECONDS) return refuse("permit2_deadline_expired", "the permit has expired or expires within seconds");
  if (permit.witness.validAfter > now) return refuse("permit2_not_yet_valid", "the permit is not valid yet");
  if (!/^\d{1,30}$/.test(required.amount)) return refuse("permit2_amount_mismatch", `the required amount ${required.amount} is not a whole number`);
  const asked = BigInt(required.amount);
  if (!settling && asked !== permit.permitted.amount) return refuse("permit2_amount_mismatch", `the permitted amount ${permit.permitted.amount} is not the required amount ${asked}`);
  if (permit.permitted.token !== getAddress(chainSettings().usdcAddress)) return refuse("permit2_token_mismatch", "the permit is for another token than USDC");
  if (!(await signedByOwner(permit, signature))) return refuse("invalid_permit2_signature", "the signature is not the owner's over this permit (EOA signatures only)");
  if (asked > permit.permitted.amount) return refuse("invalid_upto_evm_payload_settlement_exceeds_amount", `the amount to settle ${asked} is above the permitted ${permit.permitted.amount}`);
  const tooSmall = belowMinimum(settling ? asked : permit.permitted.amount, BELOW_MINIMUM);
  if (tooSmall && !(settling && asked === 0n)) return tooSmall;
  if (!(await uptoProxyDeployed())) return refuse("permit2_proxy_not_deployed", "Permit2 or the x402 upto proxy is not deployed on this chain");
  if ((await read(findSale(payer, payment.nonce))) || (await permit2NonceUsed(payer, permit.nonce))) return refuse("permit2_invalid_nonce", "this permit's nonce has already been used");
  if ((await usdcBalanceOf(payer)) < asked) return refuse("permit2_insufficient_balance", "the payer's USDC balance is below the amount");
  if ((await permit2Allowance(payer)) < asked) return refuse("permit2_allowance_required", "the payer has not approved Permit2 for the amount of USDC");
  return asked;
}
