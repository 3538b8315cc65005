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

/** How long a treasury balance read for the metrics is used again, and how long a scrape waits for a new one. */
const TREASURY_FRESH_MS = 30_000;
const TREASURY_WAIT_MS = 2_000;
let treasuryRead: { usdc: bigint; gas: bigint; at: number } | null = null;
let treasuryReading: Promise<void> | null = null;

/**
 * The treasury's USDC and gas (wei) for the metrics: read through the RPC at most every 30 s, a scrape
 * waiting at most 2 s for it (one read at a time); the last read that succeeded (its time in `at`), or
 * null before any did.
 */
export async function recentTreasuryBalances(): Promise<{ usdc: bigint; gas: bigint; at: number } | null> {
  if (treasuryRead === null || Date.now() - treasuryRead.at > TREASURY_FRESH_MS) {
    const treasury = treasuryAccount().address;
    treasuryReading ??= rpc((client) => Promise.all([usdcBalanceOf(treasury), client.getBalance({ address: treasury })]))
      .then(([usdc, gas]) => void (treasuryRead = { usdc, gas, at: Date.now() }))
      .catch(() => {})
      .finally(() => (treasuryReading = null));
    let timer: Timer | undefined;
    await Promise.race([treasuryReading, new Promise((done) => (timer = setTimeout(done, TREASURY_WAIT_MS)))]);
    clearTimeout(timer);
  }
  return treasuryRead;
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
