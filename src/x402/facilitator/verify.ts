// What the facilitator checks of a payment before it may be settled (POST /verify answers it; a settle
// checks it again before claiming the authorization), and what it settles (GET /supported). The
// calling agent is the seller: only the `exact` scheme on the configured network, in USDC, paid to one
// of its own deposit addresses; an authorization of the internal settlement signer only as an open
// /x402/pay payment to it (settled in the ledger), and never one of the treasury's (it pays outside
// payees only: submitted here, it would move treasury USDC to an agentbank address). Nothing below
// X402_FACILITATOR_MIN_AMOUNT: a sale of 0 (or of dust) costs the treasury a settlement's gas for nothing.
import { getAddress, isAddress, type Hex } from "viem";
import { isBlocked } from "../../agents/blocks";
import { depositAddressOf } from "../../chain/addresses";
import { chainSettings, networkName, usdcBalanceOf } from "../../chain/client";
import { authorizationState, chainNowSeconds, signedByPayer, type TransferAuthorization } from "../../chain/eip3009";
import { internalSignerAccount, treasuryAccount } from "../../chain/keys";
import { config } from "../../config";
import { read } from "../../db";
import { toMajor } from "../../money";
import { paymentOfAuthorization, type Payment } from "../payments";
import { recordDiscovery } from "./discovery";
import type { FacilitatorRequest, PaymentPayload } from "./model";
import { findSale } from "../../chain/sales";
import { type AgentId } from "../../ids";

export type Refusal = { reason: string; message: string };
/** `purchase`: the agentbank agent's /x402/pay payment that signed the authorization (the internal signer is the payer). */
type Checked = { authorization: TransferAuthorization; signature: Hex; purchase: Payment | null } | Refusal;

/**
 * @x402/evm's exact facilitator's reason for an authorization value it does not take (ErrInvalidAuthorizationValue):
 * ours for a value below X402_FACILITATOR_MIN_AMOUNT, 0 included, which the official one would settle.
 */
const INVALID_AUTHORIZATION_VALUE = "invalid_exact_evm_authorization_value";

/** An authorization must stay valid this long after verify (the official facilitator's margin). */
const VALID_BEFORE_MARGIN_SECONDS = 6n;

export const refuse = (reason: string, message: string): Refusal => ({ reason, message });

export function supported() {
  const { chainId } = chainSettings();
  return { kinds: [{ x402Version: 2, scheme: "exact", network: `eip155:${chainId}` }], extensions: ["bazaar"], signers: { "eip155:*": [treasuryAccount().address] } };
}

/** The EIP-3009 authorization, if its fields are addresses and whole numbers. */
function authorizationOf(payload: PaymentPayload): TransferAuthorization | null {
  const { from, to, value, validAfter, validBefore, nonce } = payload.payload.authorization;
  if (!isAddress(from) || !isAddress(to)) return null;
  return { from: getAddress(from), to: getAddress(to), value: BigInt(value), validAfter: BigInt(validAfter), validBefore: BigInt(validBefore), nonce: nonce.toLowerCase() as Hex };
}

/** Everything verify checks; a settle checks it again before claiming the authorization. */
export async function check(agentId: AgentId, request: FacilitatorRequest): Promise<Checked> {
  const { paymentPayload: payment, paymentRequirements: required } = request;
  const { chainId, usdcAddress } = chainSettings();
  if (payment.x402Version !== 2 || request.x402Version !== 2) return refuse("invalid_x402_version", "this facilitator speaks x402 version 2 only");
  if (required.scheme !== "exact" || payment.accepted.scheme !== "exact") return refuse("invalid_exact_evm_scheme", "only the exact scheme is settled");
  const networks = [`eip155:${chainId}`, networkName(chainId)];
  if (!networks.includes(required.network) || payment.accepted.network !== required.network) {
    return refuse("invalid_exact_evm_network_mismatch", `only ${networks[0]} is settled, and the payment must name the required network`);
  }
  if (!isAddress(required.asset) || getAddress(required.asset) !== getAddress(usdcAddress)) return refuse("invalid_asset", `only USDC (${usdcAddress}) is settled`);
  const own = await read(depositAddressOf(agentId));
  if (!isAddress(required.payTo) || own === null || getAddress(required.payTo) !== getAddress(own)) {
    return refuse("invalid_pay_to", `payTo ${required.payTo} is not one of your deposit addresses (${own}): the facilitator settles only payments to the calling agent`);
  }
  const authorization = authorizationOf(payment);
  if (!authorization) return refuse("invalid_exact_evm_payload", "the authorization's from and to must be addresses");
  if (authorization.to !== getAddress(required.payTo)) return refuse("invalid_exact_evm_recipient_mismatch", "the authorization pays another address than payTo");
  if (!/^\d{1,30}$/.test(required.amount) || authorization.value !== BigInt(required.amount)) {
    return refuse("invalid_exact_evm_payload_authorization_value_mismatch", `the authorization's value ${authorization.value} is not the required amount ${required.amount}`);
  }
  if (authorization.value < config.x402FacilitatorMinAmount) {
    const minimum = toMajor(config.x402FacilitatorMinAmount, "USDC");
    return refuse(INVALID_AUTHORIZATION_VALUE, `${toMajor(authorization.value, "USDC")} USDC is below this facilitator's minimum payment of ${minimum} USDC (X402_FACILITATOR_MIN_AMOUNT)`);
  }
  const now = await chainNowSeconds();
  if (authorization.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) return refuse("invalid_exact_evm_payload_authorization_valid_before", "the authorization has expired or expires within seconds");
  if (authorization.validAfter > now) return refuse("invalid_exact_evm_payload_authorization_valid_after", "the authorization is not valid yet");
  const signature = payment.payload.signature as Hex;
  if (!(await signedByPayer(authorization, signature))) return refuse("invalid_exact_evm_signature", "the signature is not the payer's over this authorization (EOA signatures only)");
  const seen = await read(findSale(authorization.from, authorization.nonce));
  if (seen || (await authorizationState(authorization.from, authorization.nonce))) return refuse("invalid_exact_evm_nonce_already_used", "this authorization's nonce has already been used");
  if (authorization.from === treasuryAccount().address) {
    return refuse("invalid_exact_evm_payload", "the treasury's authorizations pay payees outside agentbank only: they are never settled to an agentbank address");
  }
  if (authorization.from !== internalSignerAccount().address) {
    if ((await usdcBalanceOf(authorization.from)) < authorization.value) return refuse("invalid_exact_evm_insufficient_balance", "the payer's USDC balance is below the amount");
    return { authorization, signature, purchase: null };
  }
  // The internal signer pays only what an agent's /x402/pay debited, to the payee that payment named.
  const purchase = await read(paymentOfAuthorization(authorization.nonce));
  if (!purchase || purchase.status !== "PENDING" || purchase.internalAgentId !== agentId) {
    return refuse("invalid_exact_evm_payload", "this authorization of agentbank's internal settlement signer is not an open agentbank payment to you");
  }
  if (await read(isBlocked(agentId, purchase.agentId))) return refuse("payer_blocked", "the paying agent is one you blocked");
  return { authorization, signature, purchase };
}

export async function verify(agentId: AgentId, request: FacilitatorRequest) {
  chainSettings();
  const payer = request.paymentPayload.payload.authorization.from;
  const checked = await check(agentId, request);
  if ("reason" in checked) return { isValid: false, invalidReason: checked.reason, invalidMessage: checked.message, payer };
  await recordDiscovery(agentId, request);
  return { isValid: true, payer };
}
