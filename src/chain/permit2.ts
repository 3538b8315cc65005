// Permit2's SignatureTransfer as the x402 `upto` scheme uses it: the buyer signs a
// PermitWitnessTransferFrom (Permit2's EIP-712 domain) letting the official x402 upto proxy move at
// most `permitted.amount` of USDC to `witness.to`, submitted only by `witness.facilitator`, from
// `witness.validAfter` until `deadline`. The seller settles any amount up to it; Permit2 marks the
// nonce used (an unordered bitmap per owner) whatever was settled.
import { encodeFunctionData, erc20Abi, parseAbi, recoverTypedDataAddress, type Address, type Hex } from "viem";
import { chainSettings, publicClient } from "./client";
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

const abi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)",
]);

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

/** Whether Permit2 holds `nonce` of `owner` as used (or invalidated), at the latest block. */
export async function permit2NonceUsed(owner: Address, nonce: bigint): Promise<boolean> {
  const word = await publicClient().readContract({ address: PERMIT2_ADDRESS, abi, functionName: "nonceBitmap", args: [owner, nonce >> 8n] });
  return ((word >> (nonce & 0xffn)) & 1n) === 1n;
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
