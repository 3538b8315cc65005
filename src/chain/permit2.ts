// Permit2's SignatureTransfer as the x402 `upto` scheme uses it, on both sides. The payer signs a
// PermitWitnessTransferFrom (Permit2's EIP-712 domain) letting the official x402UptoPermit2Proxy move at
// most `permitted.amount` of USDC to `witness.to`, submitted only by `witness.facilitator`, from
// `witness.validAfter` until `deadline` (inclusive: usable while block.timestamp ≤ deadline). The seller
// settles any amount up to it; Permit2 marks the nonce used (an unordered bitmap per owner) whatever was
// settled. The buyer's side signs permits and reads what a settlement moved; the facilitator's checks a
// permit and signs the proxy call. The treasury's one Permit2 allowance: permit2-approval.ts.
import { decodeFunctionData, encodeFunctionData, erc20Abi, getAddress, parseAbi, parseEventLogs, recoverTypedDataAddress, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { randomNonce } from "../ids";
import { chainSettings, publicClient } from "./client";
import { chainNowSeconds } from "./eip3009";
import { signTreasuryCall } from "./treasury-call";

/** Permit2, at the same address on every chain. */
export const PERMIT2_ADDRESS: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
/** The official x402UptoPermit2Proxy (@x402/evm x402UptoPermit2ProxyAddress), at the same address on every chain. */
export const UPTO_PROXY_ADDRESS: Address = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002";
/** The gas limit of a proxy settle (Permit2's permitWitnessTransferFrom: about 90,000 used on USDC). */
export const UPTO_SETTLE_GAS = 250_000n;

/** The EIP-712 types the buyer signs (@x402/evm uptoPermit2WitnessTypes). */
export const UPTO_WITNESS_TYPES = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "Witness" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  Witness: [
    { name: "to", type: "address" },
    { name: "facilitator", type: "address" },
    { name: "validAfter", type: "uint256" },
  ],
} as const;

/** The proxy's two settling calls (the second with an EIP-2612 permit first), and Permit2's nonce bitmap. */
const abi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "struct EIP2612Permit { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function settleWithPermit(EIP2612Permit permit2612, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)",
]);

export type UptoPermit = {
  /** Permit2's nonce, as 0x + 64 hex digits (lowercase). */
  nonce: Hex;
  /** The permit's deadline (s): usable up to and including it. */
  deadline: bigint;
  /** The payment payload of the x402 header: { signature, permit2Authorization }. */
  payload: Record<string, unknown>;
};

/**
 * The permit @x402/evm's upto client signs: a random 256-bit nonce, validAfter 0, spender the official
 * proxy, witness { to: payTo, facilitator, validAfter }; the deadline `validForSeconds` after the later
 * of this machine's clock and the chain's.
 */
export async function signUptoPermit(args: { signer: PrivateKeyAccount; payTo: Address; facilitator: Address; maximum: bigint; validForSeconds: number }): Promise<UptoPermit> {
  const { signer } = args;
  const settings = chainSettings();
  const token = getAddress(settings.usdcAddress);
  const nonce = randomNonce();
  const deadline = (await chainNowSeconds()) + BigInt(args.validForSeconds);
  const witness = { to: getAddress(args.payTo), facilitator: getAddress(args.facilitator), validAfter: 0n };
  const signature = await signer.signTypedData({
    domain: { name: "Permit2", chainId: settings.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: UPTO_WITNESS_TYPES,
    primaryType: "PermitWitnessTransferFrom",
    message: { permitted: { token, amount: args.maximum }, spender: UPTO_PROXY_ADDRESS, nonce: BigInt(nonce), deadline, witness },
  });
  const permit2Authorization = {
    from: signer.address,
    permitted: { token, amount: args.maximum.toString() },
    spender: UPTO_PROXY_ADDRESS,
    nonce: BigInt(nonce).toString(),
    deadline: deadline.toString(),
    witness: { ...witness, validAfter: "0" },
  };
  return { nonce, deadline, payload: { signature, permit2Authorization } };
}

export type Permit2Authorization = {
  from: Address;
  permitted: { token: Address; amount: bigint };
  spender: Address;
  nonce: bigint;
  deadline: bigint;
  witness: { to: Address; facilitator: Address; validAfter: bigint };
};

/** Whether `signature` is the owner's (an EOA, 65 bytes) over this permit, in Permit2's domain on the configured chain. */
export async function signedByOwner(permit: Permit2Authorization, signature: Hex): Promise<boolean> {
  const { from, ...message } = permit;
  try {
    const signer = await recoverTypedDataAddress({
      domain: { name: "Permit2", chainId: chainSettings().chainId, verifyingContract: PERMIT2_ADDRESS },
      types: UPTO_WITNESS_TYPES,
      primaryType: "PermitWitnessTransferFrom",
      message,
      signature,
    });
    return signer.toLowerCase() === from.toLowerCase();
  } catch {
    return false;
  }
}

/** Whether Permit2 holds `nonce` of `owner` as used (or invalidated), at `blockNumber` (latest if absent). */
export async function permit2NonceUsed(owner: Address, nonce: bigint | Hex, blockNumber?: bigint): Promise<boolean> {
  const value = BigInt(nonce);
  const word = await publicClient().readContract({ address: PERMIT2_ADDRESS, abi, functionName: "nonceBitmap", args: [owner, value >> 8n], blockNumber });
  return ((word >> (value & 0xffn)) & 1n) === 1n;
}

/** What `owner` lets Permit2 move of the configured USDC. */
export function permit2Allowance(owner: Address): Promise<bigint> {
  return publicClient().readContract({ address: chainSettings().usdcAddress, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2_ADDRESS] });
}

/** Whether the proxy (and Permit2) are deployed on the configured chain. */
export async function uptoProxyDeployed(): Promise<boolean> {
  const client = publicClient();
  const [proxy, permit2] = await Promise.all([client.getCode({ address: UPTO_PROXY_ADDRESS }), client.getCode({ address: PERMIT2_ADDRESS })]);
  return (proxy?.length ?? 0) > 2 && (permit2?.length ?? 0) > 2;
}

/** The treasury's signed transaction settling `amount` of the permit through the proxy, with treasury nonce `nonce` (not broadcast). */
export function signUptoSettlement(permit: Permit2Authorization, amount: bigint, signature: Hex, nonce: bigint): Promise<{ raw: Hex; hash: Hex }> {
  const data = encodeFunctionData({
    abi,
    functionName: "settle",
    args: [{ permitted: permit.permitted, nonce: permit.nonce, deadline: permit.deadline }, amount, permit.from, permit.witness, signature],
  });
  return signTreasuryCall({ to: UPTO_PROXY_ADDRESS, data, gas: UPTO_SETTLE_GAS }, nonce);
}

export type UptoSettlement = { transaction: Hex; amount: bigint; blockNumber: bigint };

/**
 * What transaction `hash` did with `owner`'s upto permit `nonce`: the amount the proxy moved to `payTo`,
 * read from the call (settle or settleWithPermit, on the official proxy, for this owner, nonce and
 * payee) and the USDC Transfer log it made; null if the transaction is not that (or failed, or unknown).
 */
export async function uptoSettlementIn(hash: Hex, permit: { owner: Address; nonce: Hex; payTo: Address }): Promise<UptoSettlement | null> {
  const client = publicClient();
  const [transaction, receipt] = await Promise.all([client.getTransaction({ hash }).catch(() => null), client.getTransactionReceipt({ hash }).catch(() => null)]);
  if (!transaction || !receipt || receipt.status !== "success" || transaction.to === null || getAddress(transaction.to) !== UPTO_PROXY_ADDRESS) return null;
  let call;
  try {
    call = decodeFunctionData({ abi, data: transaction.input });
  } catch {
    return null;
  }
  if (call.functionName === "nonceBitmap") return null;
  const [{ permitted, nonce }, amount, owner, { to }] = call.functionName === "settle" ? call.args : [call.args[1], call.args[2], call.args[3], call.args[4]];
  if (nonce !== BigInt(permit.nonce) || getAddress(owner) !== getAddress(permit.owner) || getAddress(to) !== getAddress(permit.payTo)) return null;
  const usdc = getAddress(chainSettings().usdcAddress);
  if (getAddress(permitted.token) !== usdc) return null;
  const moved = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).some(
    (log) => getAddress(log.address) === usdc && getAddress(log.args.from) === getAddress(permit.owner) && getAddress(log.args.to) === getAddress(permit.payTo) && log.args.value === amount,
  );
  if (!moved) return null;
  return { transaction: hash, amount, blockNumber: receipt.blockNumber };
}
