// The x402 `batch-settlement` scheme as the buyer speaks it (v2 only): reading the requirement, the
// channel's config and id, the treasury's signatures (the deposit's ERC-3009 ReceiveWithAuthorization to
// the deposit collector, the cumulative vouchers), the payment header, and what the server answers.
// The types and addresses are @x402/evm's (its batch-settlement client builds the same payloads).
import { encodeAbiParameters, getAddress, hashTypedData, isAddress, keccak256, toHex, zeroAddress, type Hex, type PrivateKeyAccount } from "viem";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../../chain/eip3009";
import { encode, type Expected, type Offer } from "../protocol";

export const BATCH_SETTLEMENT = "batch-settlement";
/**
 * Where the escrow and its ERC-3009 deposit collector are, on every chain (CREATE2): @x402/evm's
 * BATCH_SETTLEMENT_ADDRESS and ERC3009_DEPOSIT_COLLECTOR_ADDRESS (a dev dependency only: the service
 * does not ship it; test/x402-batch.test.ts checks these are its values).
 */
export const BATCH_SETTLEMENT_ADDRESS = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS = "0x4020806089470a89826cB9fB1f4059150b550004";
/** The escrow's bounds on a channel's withdrawal delay (MIN_WITHDRAW_DELAY, MAX_WITHDRAW_DELAY). */
const MIN_WITHDRAW_DELAY = 900;
const MAX_WITHDRAW_DELAY = 30 * 24 * 3600;
const MAX_AMOUNT_DIGITS = 18;

export type BatchRequirement = {
  network: string;
  chainId: number;
  amount: bigint;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  receiverAuthorizer: `0x${string}`;
  withdrawDelay: number;
  assetName: string;
  assetVersion: string;
  maxTimeoutSeconds: number;
  raw: Record<string, unknown>;
};

export type ChannelConfig = {
  payer: `0x${string}`;
  payerAuthorizer: `0x${string}`;
  receiver: `0x${string}`;
  receiverAuthorizer: `0x${string}`;
  token: `0x${string}`;
  withdrawDelay: number;
  salt: Hex;
};

const domain = (chainId: number) => ({ name: "x402 Batch Settlement", version: "1", chainId, verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS) });
export const CHANNEL_CONFIG_TYPES = {
  ChannelConfig: [
    { name: "payer", type: "address" },
    { name: "payerAuthorizer", type: "address" },
    { name: "receiver", type: "address" },
    { name: "receiverAuthorizer", type: "address" },
    { name: "token", type: "address" },
    { name: "withdrawDelay", type: "uint40" },
    { name: "salt", type: "bytes32" },
  ],
} as const;
const VOUCHER_TYPES = { Voucher: [{ name: "channelId", type: "bytes32" }, { name: "maxClaimableAmount", type: "uint128" }] } as const;
/** EIP-3009's receive variant: the same fields as the transfer, under its own type name. */
const RECEIVE_TYPES = { ReceiveWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization } as const;

/** The batch-settlement requirements of an offer the service can pay (v2, the configured USDC and network), with the reasons of the others. */
export function readBatchRequirements(offer: Offer, expected: Expected & { chainId: number }): { usable: BatchRequirement[]; reasons: string[] } {
  const usable: BatchRequirement[] = [];
  const reasons: string[] = [];
  for (const raw of offer.requirements) {
    if (raw.scheme !== BATCH_SETTLEMENT) continue;
    const read = readOne(offer.version, raw, expected);
    if (typeof read === "string") reasons.push(`batch-settlement: ${read}`);
    else usable.push(read);
  }
  return { usable, reasons };
}

function readOne(version: 1 | 2, raw: Record<string, unknown>, expected: Expected & { chainId: number }): BatchRequirement | string {
  if (version !== 2) return "only x402 v2 defines it";
  if (raw.network !== `eip155:${expected.chainId}`) return `network ${JSON.stringify(raw.network)} is not eip155:${expected.chainId}`;
  if (typeof raw.asset !== "string" || !isAddress(raw.asset, { strict: false }) || getAddress(raw.asset) !== getAddress(expected.usdc)) return `asset ${JSON.stringify(raw.asset)} is not the configured USDC`;
  if (typeof raw.amount !== "string" || !/^[1-9][0-9]*$/.test(raw.amount) || raw.amount.length > MAX_AMOUNT_DIGITS) return `amount ${JSON.stringify(raw.amount)} is not a positive whole number of USDC base units`;
  if (typeof raw.payTo !== "string" || !isAddress(raw.payTo, { strict: false }) || getAddress(raw.payTo) === zeroAddress) return `payTo ${JSON.stringify(raw.payTo)} is not an address`;
  const extra = raw.extra !== null && typeof raw.extra === "object" ? (raw.extra as Record<string, unknown>) : {};
  const authorizer = extra.receiverAuthorizer;
  if (typeof authorizer !== "string" || !isAddress(authorizer, { strict: false }) || getAddress(authorizer) === zeroAddress) return "extra.receiverAuthorizer is not an address";
  const delay = extra.withdrawDelay === undefined ? MIN_WITHDRAW_DELAY : extra.withdrawDelay;
  if (typeof delay !== "number" || !Number.isInteger(delay) || delay < MIN_WITHDRAW_DELAY || delay > MAX_WITHDRAW_DELAY) return `extra.withdrawDelay ${JSON.stringify(delay)} is not ${MIN_WITHDRAW_DELAY}..${MAX_WITHDRAW_DELAY} s`;
  if ((extra.assetTransferMethod ?? "eip3009") !== "eip3009") return `extra.assetTransferMethod ${JSON.stringify(extra.assetTransferMethod)}: the service deposits only through ERC-3009`;
  if (typeof extra.name !== "string" || typeof extra.version !== "string") return "extra.name and extra.version (the asset's EIP-712 domain) are missing";
  return {
    network: raw.network,
    chainId: expected.chainId,
    amount: BigInt(raw.amount),
    asset: getAddress(raw.asset),
    payTo: getAddress(raw.payTo),
    receiverAuthorizer: getAddress(authorizer),
    withdrawDelay: delay,
    assetName: extra.name,
    assetVersion: extra.version,
    maxTimeoutSeconds: Math.min(Math.max(Number(raw.maxTimeoutSeconds) || 60, 10), 3600),
    raw,
  };
}

export const randomSalt = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));

/** The channel's id on chain: the EIP-712 hash of its config in the escrow's domain (lowercase). */
export const channelIdOf = (config: ChannelConfig, chainId: number): Hex =>
  hashTypedData({ domain: domain(chainId), types: CHANNEL_CONFIG_TYPES, primaryType: "ChannelConfig", message: config }).toLowerCase() as Hex;

/** A voucher: the receiver may claim up to `cumulative` from the channel, in total. */
export async function signVoucher(signer: PrivateKeyAccount, channelId: Hex, cumulative: bigint, chainId: number) {
  const signature = await signer.signTypedData({ domain: domain(chainId), types: VOUCHER_TYPES, primaryType: "Voucher", message: { channelId, maxClaimableAmount: cumulative } });
  return { channelId, maxClaimableAmount: cumulative.toString(), signature };
}

/** The deposit's authorization: `amount` from the payer to the deposit collector, nonce bound to the channel. */
export async function signDeposit(signer: PrivateKeyAccount, requirement: BatchRequirement, channelId: Hex, amount: bigint, validBefore: bigint) {
  const salt = randomSalt();
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [channelId, BigInt(salt)]));
  const signature = await signer.signTypedData({
    domain: { name: requirement.assetName, version: requirement.assetVersion, chainId: requirement.chainId, verifyingContract: requirement.asset },
    types: RECEIVE_TYPES,
    primaryType: "ReceiveWithAuthorization",
    message: { from: signer.address, to: getAddress(ERC3009_DEPOSIT_COLLECTOR_ADDRESS), value: amount, validAfter: 0n, validBefore, nonce },
  });
  return { nonce: nonce.toLowerCase(), payload: { amount: amount.toString(), authorization: { erc3009Authorization: { validAfter: "0", validBefore: validBefore.toString(), salt, signature } } } };
}

const wireConfig = (config: ChannelConfig) => ({ ...config });

/** The PAYMENT-SIGNATURE header of a deposit, voucher or refund payload. */
export function batchHeader(offer: Offer, requirement: BatchRequirement, payload: Record<string, unknown>): [string, string] {
  const extensions = Object.keys(offer.extensions).length > 0 ? { extensions: offer.extensions } : {};
  return ["PAYMENT-SIGNATURE", encode({ x402Version: 2, resource: offer.resource, accepted: requirement.raw, payload, ...extensions })];
}

export const depositPayload = (config: ChannelConfig, voucher: object, deposit: object) => ({ type: "deposit", channelConfig: wireConfig(config), voucher, deposit });
export const voucherPayload = (config: ChannelConfig, voucher: object) => ({ type: "voucher", channelConfig: wireConfig(config), voucher });
export const refundPayload = (config: ChannelConfig, voucher: object) => ({ type: "refund", channelConfig: wireConfig(config), voucher });

/**
 * What the server says it charged for this request (PAYMENT-RESPONSE extra.chargedAmount, whole
 * units, at most the request's amount), or null when it claims no success.
 */
export function chargeClaim(headers: Headers): { charged: bigint; transaction: string | null } | null {
  const header = headers.get("payment-response");
  if (!header) return null;
  try {
    const claim = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Record<string, unknown>;
    if (claim.success !== true) return null;
    const extra = claim.extra !== null && typeof claim.extra === "object" ? (claim.extra as Record<string, unknown>) : {};
    const charged = typeof extra.chargedAmount === "string" && /^[0-9]{1,18}$/.test(extra.chargedAmount) ? BigInt(extra.chargedAmount) : null;
    const transaction = typeof claim.transaction === "string" && /^0x[0-9a-fA-F]{64}$/.test(claim.transaction) ? claim.transaction : null;
    return charged === null ? null : { charged, transaction };
  } catch {
    return null;
  }
}
