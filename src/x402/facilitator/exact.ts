// The exact scheme's checks (EIP-3009 transferWithAuthorization on USDC), after schemes.ts read the
// payment and verify.ts checked what every scheme shares: the official exact facilitator's checks and
// reasons, in its order, plus agentbank's minimum amount.
import { getAddress } from "viem";
import { authorizationState, chainNowSeconds, signedByPayer } from "../../chain/eip3009";
import { findSale } from "../../chain/sales";
import { read } from "../../db";
import type { Requirements } from "./model";
import { refuse, type ExactPayment, type Refusal } from "./schemes";
import { belowMinimum } from "./amounts";

/**
 * @x402/evm's exact facilitator's reason for an authorization value it does not take (ErrInvalidAuthorizationValue):
 * ours for a value below X402_FACILITATOR_MIN_AMOUNT, 0 included, which the official one would settle.
 */
const INVALID_AUTHORIZATION_VALUE = "invalid_exact_evm_authorization_value";

/** An authorization must stay valid this long after verify (the official facilitator's margin). */
export const VALID_BEFORE_MARGIN_SECONDS = 6n;

/** What exact checks of the payment; the amount it settles (the authorization's value) if it passes. */
export async function checkExact(payment: ExactPayment, required: Requirements): Promise<bigint | Refusal> {
  const { authorization, signature } = payment;
  if (authorization.to !== getAddress(required.payTo)) return refuse("invalid_exact_evm_recipient_mismatch", "the authorization pays another address than payTo");
  if (!/^\d{1,30}$/.test(required.amount) || authorization.value !== BigInt(required.amount)) {
    return refuse("invalid_exact_evm_payload_authorization_value_mismatch", `the authorization's value ${authorization.value} is not the required amount ${required.amount}`);
  }
  const tooSmall = belowMinimum(authorization.value, INVALID_AUTHORIZATION_VALUE);
  if (tooSmall) return tooSmall;
  const now = await chainNowSeconds();
  if (authorization.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) return refuse("invalid_exact_evm_payload_authorization_valid_before", "the authorization has expired or expires within seconds");
  if (authorization.validAfter > now) return refuse("invalid_exact_evm_payload_authorization_valid_after", "the authorization is not valid yet");
  if (!(await signedByPayer(authorization, signature))) return refuse("invalid_exact_evm_signature", "the signature is not the payer's over this authorization (EOA signatures only)");
  const seen = await read(findSale(payment.payer, payment.nonce));
  if (seen || (await authorizationState(authorization.from, authorization.nonce))) return refuse("invalid_exact_evm_nonce_already_used", "this authorization's nonce has already been used");
  return authorization.value;
}
