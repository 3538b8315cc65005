// A contract call signed by the treasury with a given nonce and gas limit, not broadcast: the x402
// facilitator's settlements (EIP-3009 on the token, Permit2 through the upto proxy) and the treasury's
// Permit2 approval store it with its hash before anything is sent, so a restart re-sends that same
// transaction (sender.ts broadcast); a batch-settlement channel's payer calls send it at once.
import { keccak256, type Address, type Hex } from "viem";
import { chainSettings, publicClient } from "./client";
import { treasuryAccount } from "./keys";

export async function signTreasuryCall(call: { to: Address; data: Hex; gas: bigint }, nonce: bigint): Promise<{ raw: Hex; hash: Hex }> {
  const fees = await publicClient().estimateFeesPerGas();
  const raw = await treasuryAccount().signTransaction({
    chainId: chainSettings().chainId,
    type: "eip1559",
    ...call,
    nonce: Number(nonce),
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { raw, hash: keccak256(raw) };
}
