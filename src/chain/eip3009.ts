// EIP-3009 TransferWithAuthorization: the payment of an x402 "exact" scheme, signed by the treasury
// for a payee outside agentbank, or by the internal settlement signer (keys.ts) for one of agentbank's
// own deposit addresses.
// The authorization is valid from a minute ago until `validBefore` (seconds, chain time); the token
// records each nonce once it is used (authorizationState), which is how the service learns that a
// payment was settled, whatever the resource server says.
import { encodeFunctionData, parseAbi, recoverTypedDataAddress, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { randomNonce } from "../ids";
import { chainSettings, publicClient } from "./client";
import { treasuryAccount } from "./keys";
import { signTreasuryCall } from "./treasury-call";

/** The EIP-712 types of EIP-3009 (also what a verifier checks the signature against). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const tokenAbi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

let domain: { name: string; version: string } | null = null;

/** The token's own EIP-712 name and version (read once): a signature over anything else is never usable. */
async function tokenDomain(): Promise<{ name: string; version: string }> {
  if (!domain) {
    const client = publicClient();
    const address = chainSettings().usdcAddress;
    const [name, version] = await Promise.all([
      client.readContract({ address, abi: tokenAbi, functionName: "name" }),
      client.readContract({ address, abi: tokenAbi, functionName: "version" }),
    ]);
    domain = { name, version };
  }
  return domain;
}

/** Now, in seconds, as the token will judge validBefore: the later of this machine's clock and the chain's. */
export async function chainNowSeconds(): Promise<bigint> {
  const block = await publicClient().getBlock({ blockTag: "latest" });
  const wall = BigInt(Math.floor(Date.now() / 1000));
  return block.timestamp > wall ? block.timestamp : wall;
}

export async function signTransferAuthorization(args: { signer: PrivateKeyAccount; to: `0x${string}`; value: bigint; validForSeconds: number }) {
  const { signer } = args;
  const [{ name, version }, now] = await Promise.all([tokenDomain(), chainNowSeconds()]);
  const authorization = {
    from: signer.address,
    to: args.to,
    value: args.value,
    validAfter: now - 60n,
    validBefore: now + BigInt(args.validForSeconds),
    nonce: randomNonce(),
  };
  const signature = await signer.signTypedData({
    domain: { name, version, chainId: chainSettings().chainId, verifyingContract: chainSettings().usdcAddress },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  return {
    signature,
    nonce: authorization.nonce,
    validBefore: authorization.validBefore,
    authorization: {
      from: authorization.from,
      to: authorization.to,
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
      nonce: authorization.nonce,
    },
  };
}

/**
 * Whether the treasury's authorization `nonce` has been used on chain, at the latest block. (The token
 * marks a cancelled nonce the same way; the service never cancels one.)
 */
export function authorizationUsed(nonce: Hex): Promise<boolean> {
  return authorizationState(treasuryAccount().address, nonce);
}

/** Whether `authorizer`'s EIP-3009 nonce is used (or cancelled) at the latest block. */
export function authorizationState(authorizer: Address, nonce: Hex): Promise<boolean> {
  return publicClient().readContract({ address: chainSettings().usdcAddress, abi: tokenAbi, functionName: "authorizationState", args: [authorizer, nonce] });
}

export type TransferAuthorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

/**
 * Whether `signature` is `authorization.from`'s over the authorization, in the token's own EIP-712
 * domain. An EOA signature only (65 bytes): a smart-wallet payer (ERC-1271/6492) is not accepted.
 */
export async function signedByPayer(authorization: TransferAuthorization, signature: Hex): Promise<boolean> {
  const { name, version } = await tokenDomain();
  try {
    const signer = await recoverTypedDataAddress({
      domain: { name, version, chainId: chainSettings().chainId, verifyingContract: chainSettings().usdcAddress },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message: authorization,
      signature,
    });
    return signer.toLowerCase() === authorization.from.toLowerCase();
  } catch {
    return false;
  }
}

/** The gas limit of a transferWithAuthorization (about 80,000 used on USDC). */
export const SETTLE_GAS = 150_000n;

/** The treasury's signed transaction calling transferWithAuthorization with `nonce`, and its hash (not broadcast). */
export function signSettlement(authorization: TransferAuthorization, signature: Hex, nonce: bigint): Promise<{ raw: Hex; hash: Hex }> {
  const { from, to, value, validAfter, validBefore, nonce: authorizationNonce } = authorization;
  const data = encodeFunctionData({ abi: tokenAbi, functionName: "transferWithAuthorization", args: [from, to, value, validAfter, validBefore, authorizationNonce, signature] });
  return signTreasuryCall({ to: chainSettings().usdcAddress, data, gas: SETTLE_GAS }, nonce);
}
