// What the facilitator checks of a payment before it may be settled (POST /verify answers it; a settle
// checks it again before claiming the payment), and what it settles (GET /supported). The calling
// agent is the seller: the exact (EIP-3009) and upto (Permit2) schemes on the configured network, in
// USDC, paid to one of its own deposit addresses. The order is the official facilitator's: the
// scheme and network first, then the scheme's payload (schemes.ts), then the scheme's checks
// (exact.ts, upto.ts), then agentbank's payer rules below. An authorization of the internal settlement
// signer is taken only as exact, as an open /x402/pay payment to the seller (settled in the ledger);
// the treasury's never (it pays outside payees only: submitted here, it would move treasury USDC to an
// agentbank address).
import { getAddress, isAddress } from "viem";
import { isBlocked } from "../../agents/blocks";
import { depositAddressOf } from "../../chain/addresses";
import { chainSettings, usdcBalanceOf } from "../../chain/client";
import { internalSignerAccount, treasuryAccount } from "../../chain/keys";
import { read } from "../../db";
import { paymentOfAuthorization, type Payment } from "../payments";
import { recordDiscovery } from "./discovery";
import { checkExact } from "./exact";
import type { FacilitatorRequest } from "./model";
import { payerOf, readPayment, refuse, settledNetworks, type Refusal, type SchemePayment } from "./schemes";
import { checkUpto } from "./upto";
import { type AgentId } from "../../ids";

/**
 * `amount`: what a settle moves (exact: the authorization's value; upto: the amount asked). `purchase`:
 * the agentbank agent's /x402/pay payment that signed the authorization (the internal signer is the payer).
 */
export type Checked = { payment: SchemePayment; amount: bigint; purchase: Payment | null } | Refusal;

export function supported() {
  const [network] = settledNetworks();
  const facilitatorAddress = treasuryAccount().address;
  return {
    kinds: [
      { x402Version: 2, scheme: "exact", network: network! },
      { x402Version: 2, scheme: "upto", network: network!, extra: { facilitatorAddress } },
    ],
    extensions: ["bazaar", "payment-identifier"],
    signers: { "eip155:*": [facilitatorAddress] },
  };
}

/** Everything verify checks; a settle checks it again (`settling`: upto's amount is then the one to settle) before claiming the payment. */
export async function check(agentId: AgentId, request: FacilitatorRequest, settling: boolean): Promise<Checked> {
  const payment = readPayment(request);
  if ("reason" in payment) return payment;
  const required = request.paymentRequirements;
  const { usdcAddress } = chainSettings();
  const scheme = payment.scheme;
  if (!isAddress(required.asset) || getAddress(required.asset) !== getAddress(usdcAddress)) return refuse("invalid_asset", `only USDC (${usdcAddress}) is settled`);
  const own = await read(depositAddressOf(agentId));
  if (!isAddress(required.payTo) || own === null || getAddress(required.payTo) !== getAddress(own)) {
    return refuse("invalid_pay_to", `payTo ${required.payTo} is not one of your deposit addresses (${own}): the facilitator settles only payments to the calling agent`);
  }
  const amount = scheme === "exact" ? await checkExact(payment, required) : await checkUpto(payment, required, settling);
  if (typeof amount !== "bigint") return amount;
  if (payment.payer === treasuryAccount().address) {
    return refuse(`invalid_${scheme}_evm_payload`, "the treasury's authorizations pay payees outside agentbank only: they are never settled to an agentbank address");
  }
  if (payment.payer !== internalSignerAccount().address) {
    if (scheme === "exact" && (await usdcBalanceOf(payment.payer)) < amount) return refuse("invalid_exact_evm_insufficient_balance", "the payer's USDC balance is below the amount");
    return { payment, amount, purchase: null };
  }
  // The internal signer pays only what an agent's /x402/pay debited, to the payee that payment named.
  const purchase = scheme === "exact" ? await read(paymentOfAuthorization(payment.nonce)) : null;
  if (!purchase || purchase.status !== "PENDING" || purchase.internalAgentId !== agentId) {
    return refuse(`invalid_${scheme}_evm_payload`, "this authorization of agentbank's internal settlement signer is not an open agentbank payment to you (exact only)");
  }
  if (await read(isBlocked(agentId, purchase.agentId))) return refuse("payer_blocked", "the paying agent is one you blocked");
  return { payment, amount, purchase };
}

export async function verify(agentId: AgentId, request: FacilitatorRequest) {
  chainSettings();
  const checked = await check(agentId, request, false);
  if ("reason" in checked) return { isValid: false, invalidReason: checked.reason, invalidMessage: checked.message, payer: payerOf(request) };
  await recordDiscovery(agentId, request);
  return { isValid: true, payer: checked.payment.payer };
}
