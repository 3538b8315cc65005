// EIP-3009 TransferWithAuthorization signed by the treasury, the payment of an x402 "exact" scheme.
import { parseAbi, toHex } from "viem";
import { randomBytes } from "node:crypto";
import { chainSettings, publicClient } from "./client";
import { treasuryAccount } from "./keys";

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

const tokenAbi = parseAbi(["function name() view returns (string)", "function version() view returns (string)"]);

export async function signTransferAuthorization(args: {
  asset: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validForSeconds: number;
  domain: { name?: string; version?: string };
}) {
  const treasury = treasuryAccount();
  const client = publicClient();
  // The token's EIP-712 domain: from the requirement's `extra`, else read from the contract.
  const name = args.domain.name ?? (await client.readContract({ address: args.asset, abi: tokenAbi, functionName: "name" }));
  const version = args.domain.version ?? (await client.readContract({ address: args.asset, abi: tokenAbi, functionName: "version" }));
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: treasury.address,
    to: args.to,
    value: args.value,
    validAfter: BigInt(now - 60),
    validBefore: BigInt(now + args.validForSeconds),
    nonce: toHex(randomBytes(32)),
  };
  const signature = await treasury.signTypedData({
    domain: { name, version, chainId: chainSettings().chainId, verifyingContract: args.asset },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  return {
    signature,
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
