// What the chain shows now, read live through the RPC: an agent's deposit wallet, and the operator's
// view of the treasury, the deposit watcher and the withdrawals in flight.
import { formatEther } from "viem";
import { config } from "../config";
import { read } from "../db";
import { toMajor } from "../money";
import { depositAddressOf } from "./addresses";
import { chainSettings, networkName, rpc, usdcBalanceOf, verifyChain } from "./client";
import { treasuryAccount } from "./keys";
import { watchCursor } from "./watcher";
import { withdrawalsInFlight } from "./withdrawals";
import { type AgentId } from "../ids";

export async function blockchainWallet(agentId: AgentId) {
  // Every agent gets its deposit address at registration (in the same write op).
  const address = (await read(depositAddressOf(agentId)))!;
  if (!config.chain.configured) {
    return { address, network: null, chainId: null, usdcContract: null, onchainBalance: null, status: "not_configured" };
  }
  const { chainId, usdcAddress } = config.chain;
  const base = { address, network: networkName(chainId), chainId, usdcContract: usdcAddress };
  try {
    await verifyChain();
    const balance = await usdcBalanceOf(address as `0x${string}`);
    return { ...base, onchainBalance: toMajor(balance, "USDC"), status: "ok" };
  } catch {
    return { ...base, onchainBalance: null, status: "unreachable" };
  }
}

export async function chainStatus() {
  const treasury = treasuryAccount().address;
  const { chainId, usdcAddress, confirmations } = chainSettings();
  const [usdc, gas, latest] = await rpc((client) => Promise.all([usdcBalanceOf(treasury), client.getBalance({ address: treasury }), client.getBlockNumber()]));
  const cursor = (await read(watchCursor()))?.block ?? null;
  return {
    network: networkName(chainId),
    chainId,
    usdcContract: usdcAddress,
    treasury: { address: treasury, usdc: toMajor(usdc, "USDC"), gas: formatEther(gas) },
    chainWatcher: { cursorBlock: cursor === null ? null : Number(cursor), latestBlock: Number(latest), lagBlocks: cursor === null ? null : Number(latest - cursor), confirmations },
    withdrawalsInFlight: await read(withdrawalsInFlight()),
  };
}
