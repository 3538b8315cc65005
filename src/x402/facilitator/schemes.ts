// Which payment a facilitator request carries, read in the official facilitator's order (@x402/core's
// x402Facilitator, then the scheme's own verify): the x402 version, then the scheme and the network
// (one this facilitator settles, else `unsupported_scheme` / `invalid_network`), and only then the
// scheme's payload, whose shape is the scheme's to judge (a payload it cannot read is the official
// `unsupported_payload_type` for upto, `invalid_exact_evm_payload` for exact), then that the payment's
// `accepted` names the same scheme and network. Every answer here is a 200 with the reason; the route's
// schema refuses (422) only a request without the envelope's fields (versions, scheme, network,
// asset, amount, payTo as strings), which no facilitator could route.
import { getAddress, isAddress, type Address, type Hex } from "viem";
import type { TransferAuthorization } from "../../chain/eip3009";
import { networkName, chainSettings } from "../../chain/client";
import type { Permit2Authorization } from "../../chain/permit2";
import type { FacilitatorRequest } from "./model";

export type Refusal = { reason: string; message: string };
export const refuse = (reason: string, message: string): Refusal => ({ reason, message });

/** `nonce`: the sale's key with `payer` (x402_sales): exact's bytes32, or "permit2:" and upto's uint256. */
export type ExactPayment = { scheme: "exact"; payer: Address; nonce: string; authorization: TransferAuthorization; signature: Hex };
export type UptoPayment = { scheme: "upto"; payer: Address; nonce: string; permit: Permit2Authorization; signature: Hex };
export type SchemePayment = ExactPayment | UptoPayment;

export const SCHEMES = ["exact", "upto"] as const;

const UINT = /^[0-9]{1,78}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{2,2048}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

const record = (value: unknown): Record<string, unknown> | null => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null);
const address = (value: unknown): Address | null => (typeof value === "string" && isAddress(value, { strict: false }) ? getAddress(value) : null);
const uint = (value: unknown): bigint | null => (typeof value === "string" && UINT.test(value) && BigInt(value) < 2n ** 256n ? BigInt(value) : null);

/** The networks this facilitator settles on: the configured chain, by CAIP-2 and by its v1 name. */
export function settledNetworks(): string[] {
  const { chainId } = chainSettings();
  return [`eip155:${chainId}`, networkName(chainId)];
}

/** Who pays, as far as the payload tells (for answers that refuse it): "" when it does not. */
export function payerOf(request: FacilitatorRequest): string {
  const payload = request.paymentPayload.payload;
  const from = record(payload.authorization)?.from ?? record(payload.permit2Authorization)?.from;
  return typeof from === "string" ? from.slice(0, 100) : "";
}

function readExact(payload: Record<string, unknown>): ExactPayment | Refusal {
  if ("permit2Authorization" in payload) return refuse("unsupported_payload_type", "exact is settled here through EIP-3009 transferWithAuthorization only, not Permit2");
  const fields = record(payload.authorization);
  const [from, to] = [address(fields?.from), address(fields?.to)];
  const [value, validAfter, validBefore] = [uint(fields?.value), uint(fields?.validAfter), uint(fields?.validBefore)];
  const { nonce } = fields ?? {};
  const { signature } = payload;
  if (!from || !to || value === null || validAfter === null || validBefore === null || typeof nonce !== "string" || !BYTES32.test(nonce) || typeof signature !== "string" || !SIGNATURE.test(signature)) {
    return refuse("invalid_exact_evm_payload", "payload must be { authorization: { from, to, value, validAfter, validBefore, nonce }, signature } (addresses, whole numbers as strings, a bytes32 nonce, a hex signature)");
  }
  const lower = nonce.toLowerCase() as Hex;
  return { scheme: "exact", payer: from, nonce: lower, authorization: { from, to, value, validAfter, validBefore, nonce: lower }, signature: signature as Hex };
}

function readUpto(payload: Record<string, unknown>): UptoPayment | Refusal {
  const fields = record(payload.permit2Authorization);
  const permitted = record(fields?.permitted);
  const witness = record(fields?.witness);
  const [from, spender, token, to, facilitator] = [address(fields?.from), address(fields?.spender), address(permitted?.token), address(witness?.to), address(witness?.facilitator)];
  const [nonce, deadline, amount, validAfter] = [uint(fields?.nonce), uint(fields?.deadline), uint(permitted?.amount), uint(witness?.validAfter)];
  const { signature } = payload;
  if (!from || !spender || !token || !to || !facilitator || nonce === null || deadline === null || amount === null || validAfter === null || typeof signature !== "string" || !SIGNATURE.test(signature)) {
    return refuse("unsupported_payload_type", "payload must be { permit2Authorization: { from, permitted: { token, amount }, spender, nonce, deadline, witness: { to, facilitator, validAfter } }, signature }");
  }
  const permit = { from, permitted: { token, amount }, spender, nonce, deadline, witness: { to, facilitator, validAfter } };
  return { scheme: "upto", payer: from, nonce: `permit2:${nonce}`, permit, signature: signature as Hex };
}

/** The request's payment, or why this facilitator does not take it (in the official order). */
export function readPayment(request: FacilitatorRequest): SchemePayment | Refusal {
  const { paymentPayload: payment, paymentRequirements: required } = request;
  if (payment.x402Version !== 2 || request.x402Version !== 2) return refuse("invalid_x402_version", "this facilitator speaks x402 version 2 only");
  const scheme = SCHEMES.find((known) => known === required.scheme);
  if (!scheme) return refuse("unsupported_scheme", `scheme ${JSON.stringify(required.scheme)} is not settled here (${SCHEMES.join(", ")})`);
  const networks = settledNetworks();
  if (!networks.includes(required.network)) return refuse("invalid_network", `network ${JSON.stringify(required.network)} is not settled here (${networks[0]})`);
  const read = scheme === "exact" ? readExact(payment.payload) : readUpto(payment.payload);
  if ("reason" in read) return read;
  if (payment.accepted.scheme !== scheme) return refuse(`invalid_${scheme}_evm_scheme`, "the payment's accepted scheme is not the required one");
  if (payment.accepted.network !== required.network) return refuse(`invalid_${scheme}_evm_network_mismatch`, "the payment's accepted network is not the required one");
  return read;
}
