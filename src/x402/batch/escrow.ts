// The batch-settlement escrow on chain as the payer sees it: a channel's balance and claimed total,
// its pending timed withdrawal, and the treasury's two payer transactions (initiateWithdraw,
// finalizeWithdraw), signed under the treasury sender's lock with its next nonce like every treasury
// transaction. Both are harmless to repeat (the escrow refuses a second initiate, or a finalize with
// nothing pending), so no signed transaction is kept: the chain's state decides the next step.
import { encodeFunctionData, getAddress, type Hex } from "viem";
import { chainSettings, publicClient } from "../../chain/client";
import { broadcast, nextTreasuryNonce, TREASURY_SENDER } from "../../chain/sender";
import { signTreasuryCall } from "../../chain/treasury-call";
import { exclusive } from "../../db";
import { ApiError } from "../../errors";
import { BATCH_SETTLEMENT_ADDRESS, CHANNEL_CONFIG_TYPES, type ChannelConfig } from "./wire";

/** The escrow's ChannelConfig argument: the struct the channel's id hashes, field for field. */
const CONFIG = { name: "config", type: "tuple", components: CHANNEL_CONFIG_TYPES.ChannelConfig } as const;
const ESCROW_ABI = [
  {
    type: "function",
    name: "channels",
    stateMutability: "view",
    inputs: [{ name: "channelId", type: "bytes32" }],
    outputs: [
      { name: "balance", type: "uint128" },
      { name: "totalClaimed", type: "uint128" },
    ],
  },
  {
    type: "function",
    name: "pendingWithdrawals",
    stateMutability: "view",
    inputs: [{ name: "channelId", type: "bytes32" }],
    outputs: [
      { name: "amount", type: "uint128" },
      { name: "initiatedAt", type: "uint40" },
    ],
  },
  { type: "function", name: "initiateWithdraw", stateMutability: "nonpayable", inputs: [CONFIG, { name: "amount", type: "uint128" }], outputs: [] },
  { type: "function", name: "finalizeWithdraw", stateMutability: "nonpayable", inputs: [CONFIG], outputs: [] },
] as const;
const ESCROW = getAddress(BATCH_SETTLEMENT_ADDRESS);
const PAYER_GAS = 200_000n;
const RECEIPT_WAIT_MS = 15_000;

/**
 * The channel on chain at the latest confirmed block (CONFIRMATIONS, as deposits are credited): its
 * balance, what was claimed from it, and when a pending withdrawal started (s; 0: none). A refund a
 * reorganisation could still undo does not close a channel.
 */
export async function escrowState(channelId: string): Promise<{ balance: bigint; claimed: bigint; withdrawalStartedAt: bigint }> {
  const client = publicClient();
  const blockNumber = (await client.getBlockNumber()) - BigInt(chainSettings().confirmations - 1);
  const [[balance, claimed], [, initiatedAt]] = await Promise.all([
    client.readContract({ address: ESCROW, abi: ESCROW_ABI, functionName: "channels", args: [channelId as Hex], blockNumber }),
    client.readContract({ address: ESCROW, abi: ESCROW_ABI, functionName: "pendingWithdrawals", args: [channelId as Hex], blockNumber }),
  ]);
  return { balance, claimed, withdrawalStartedAt: BigInt(initiatedAt) };
}

/** Sends one payer transaction from the treasury and waits for its receipt; its hash. 503 if the chain does not mine it in time. */
async function sendAsPayer(data: Hex): Promise<Hex> {
  const sent = await exclusive(TREASURY_SENDER, 10_000, async () => {
    const { raw, hash } = await signTreasuryCall({ to: ESCROW, data, gas: PAYER_GAS }, await nextTreasuryNonce());
    // The nonce is not stored as taken: a broadcast that failed would leave a gap no later treasury
    // transaction could pass. Accepted, the transaction is in the chain's pending count, which the
    // next nonce reads.
    await broadcast(raw);
    return hash;
  });
  if (!sent) throw new ApiError("CHAIN_UNAVAILABLE", "the treasury's sender is busy: try again");
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    const receipt = await publicClient()
      .getTransactionReceipt({ hash: sent })
      .catch(() => null);
    if (receipt) return sent;
    if (Date.now() > deadline) throw new ApiError("CHAIN_UNAVAILABLE", `the transaction ${sent} is not mined yet: try again`);
    await Bun.sleep(200);
  }
}

export const initiateWithdraw = (config: ChannelConfig, amount: bigint) =>
  sendAsPayer(encodeFunctionData({ abi: ESCROW_ABI, functionName: "initiateWithdraw", args: [config, amount] }));

export const finalizeWithdraw = (config: ChannelConfig) => sendAsPayer(encodeFunctionData({ abi: ESCROW_ABI, functionName: "finalizeWithdraw", args: [config] }));
