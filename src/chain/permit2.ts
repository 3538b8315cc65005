// Permit2 and the official x402UptoPermit2Proxy: the payment of an x402 "upto" scheme. The payer signs a
// PermitWitnessTransferFrom for a maximum (exactly as @x402/evm's upto client makes it); the proxy,
// called by the facilitator the witness names, moves any amount up to it to witness.to, once: Permit2
// marks the nonce used (nonceBitmap), and refuses it after `deadline` (inclusive: usable while
// block.timestamp ≤ deadline). Permit2 pulls the treasury's USDC through an ERC-20 allowance, which the
// treasury gives it once (approvePermit2), with a transaction sent like a withdrawal's: signed with the
// next treasury nonce and STORED before it is broadcast, so it is never signed twice.
import { decodeFunctionData, encodeFunctionData, erc20Abi, getAddress, keccak256, maxUint256, parseAbi, parseEventLogs, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { exclusive, read, write } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { ApiError } from "../errors";
import { randomNonce } from "../ids";
import { chainSettings, publicClient } from "./client";
import { chainNowSeconds } from "./eip3009";
import { treasuryAccount } from "./keys";
import { broadcast, nextTreasuryNonce, takeTreasuryNonce, TREASURY_SENDER } from "./sender";

export const PERMIT2_ADDRESS: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
export const UPTO_PROXY_ADDRESS: Address = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002";

/** The EIP-712 types of the upto permit (@x402/evm's uptoPermit2WitnessTypes). */
const UPTO_PERMIT_TYPES = {
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

/** The proxy's two settling calls (the second with an EIP-2612 permit first), as the facilitator makes them. */
const proxyAbi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "struct EIP2612Permit { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function settleWithPermit(EIP2612Permit permit2612, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
]);
const permit2Abi = parseAbi(["function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)"]);

/** The approval transaction, once signed: kept so that a restart re-sends it instead of signing another. */
const APPROVAL_KEY = "permit2_approval_tx";
/** How long a payment waits for the approval to be mined before it is refused (try again). */
const APPROVAL_WAIT_MS = 30_000;
const APPROVE_GAS = 100_000n;

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
    types: UPTO_PERMIT_TYPES,
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

/** Whether `owner`'s Permit2 nonce is used, at `blockNumber` (latest if absent). */
export async function permit2NonceUsed(owner: Address, nonce: Hex, blockNumber?: bigint): Promise<boolean> {
  const value = BigInt(nonce);
  const word = await publicClient().readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "nonceBitmap", args: [owner, value >> 8n], blockNumber });
  return ((word >> (value & 0xffn)) & 1n) === 1n;
}

const treasuryAllowance = () =>
  publicClient().readContract({ address: chainSettings().usdcAddress, abi: erc20Abi, functionName: "allowance", args: [treasuryAccount().address, PERMIT2_ADDRESS] });

/** Under TREASURY_SENDER: the stored approval transaction, signed now if there is none; broadcast (again). */
async function sendApproval(): Promise<void> {
  let raw = (await read(getSetting(APPROVAL_KEY))) as Hex | null;
  if (raw === null) {
    const settings = chainSettings();
    const nonce = await nextTreasuryNonce();
    const fees = await publicClient().estimateFeesPerGas();
    const signed = await treasuryAccount().signTransaction({
      chainId: settings.chainId,
      type: "eip1559",
      to: settings.usdcAddress,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] }),
      nonce: Number(nonce),
      gas: APPROVE_GAS,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    raw = await write(function* () {
      const stored = (yield* getSetting(APPROVAL_KEY, true)) as Hex | null;
      if (stored !== null) return stored;
      yield* setSetting(APPROVAL_KEY, signed);
      yield* takeTreasuryNonce(nonce);
      return signed;
    });
  }
  await broadcast(raw);
}

/**
 * Before the treasury signs an upto permit for `maximum`: Permit2 may move that much of its USDC. The
 * one approval (USDC.approve(Permit2, max)) is sent the first time, and waited for; a mined approval
 * that does not allow it (reverted) is never sent again: the operator's to look at (503 meanwhile).
 */
export async function approvePermit2(maximum: bigint): Promise<void> {
  if ((await treasuryAllowance()) >= maximum) return;
  const stored = (await read(getSetting(APPROVAL_KEY))) as Hex | null;
  if (stored !== null && (await publicClient().getTransactionReceipt({ hash: keccak256(stored) }).catch(() => null))) {
    throw new ApiError("CHAIN_UNAVAILABLE", `the treasury's Permit2 approval (${keccak256(stored)}) was mined but does not allow ${maximum} base units: the operator must look at it`);
  }
  await exclusive(TREASURY_SENDER, APPROVAL_WAIT_MS, sendApproval);
  const until = Date.now() + APPROVAL_WAIT_MS;
  while ((await treasuryAllowance()) < maximum) {
    if (Date.now() > until) throw new ApiError("CHAIN_UNAVAILABLE", "the treasury's Permit2 approval is not mined yet: try again shortly");
    await Bun.sleep(500);
  }
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
    call = decodeFunctionData({ abi: proxyAbi, data: transaction.input });
  } catch {
    return null;
  }
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
