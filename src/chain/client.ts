// The viem clients for the configured chain. Only src/chain imports viem.
import { createPublicClient, defineChain, erc20Abi, http, type PublicClient } from "viem";
import { config } from "../config";
import { ApiError } from "../errors";
import { ChainStartError } from "./keys";

const RPC_TIMEOUT_MS = 10_000;
const NETWORKS: Record<number, string> = { 8453: "base", 84532: "base-sepolia", 31337: "anvil" };

let client: PublicClient | null = null;
let batching: PublicClient | null = null;
/** How many calls one JSON-RPC batch request carries at most (batchingClient). */
export const RPC_BATCH_SIZE = 100;
let verified = false;

export type ChainSettings = Extract<typeof config.chain, { configured: true }>;

export function chainSettings(): ChainSettings {
  if (!config.chain.configured) throw new ApiError("CHAIN_UNAVAILABLE", "no chain is configured (CHAIN_RPC_URL, CHAIN_ID, USDC_ADDRESS)");
  return config.chain;
}

export const networkName = (chainId: number) => NETWORKS[chainId] ?? `eip155:${chainId}`;

export function chainDefinition() {
  const settings = chainSettings();
  return defineChain({
    id: settings.chainId,
    name: networkName(settings.chainId),
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [settings.rpcUrl] } },
  });
}

export function publicClient(): PublicClient {
  if (!client) {
    // cacheTime 0: viem otherwise serves a block number up to 4 s old, which delays confirmations.
    client = createPublicClient({ chain: chainDefinition(), cacheTime: 0, transport: http(chainSettings().rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 }) });
  }
  return client;
}

/** The same RPC with JSON-RPC batching: the calls made in one tick go out as one HTTP request (RPC_BATCH_SIZE at most). */
export function batchingClient(): PublicClient {
  if (!batching) {
    const transport = http(chainSettings().rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0, batch: { batchSize: RPC_BATCH_SIZE, wait: 0 } });
    batching = createPublicClient({ chain: chainDefinition(), cacheTime: 0, transport });
  }
  return batching;
}

/**
 * Checks once that the RPC serves CHAIN_ID before anything is read or sent through it: at start, or
 * at the first job after an RPC that did not answer at start comes up.
 */
export async function verifyChain(): Promise<void> {
  if (verified) return;
  const actual = await publicClient().getChainId();
  const expected = chainSettings().chainId;
  if (actual !== expected) throw new ChainStartError(`CHAIN_ID is ${expected} but the RPC at CHAIN_RPC_URL serves chain ${actual}`);
  verified = true;
}

/** Runs an RPC call; a failure becomes 503 CHAIN_UNAVAILABLE for the HTTP caller. */
export async function rpc<T>(call: (client: PublicClient) => Promise<T>): Promise<T> {
  try {
    await verifyChain();
    return await call(publicClient());
  } catch (error) {
    const reason = error instanceof ChainStartError ? error.message : `the chain RPC did not answer: ${String((error as Error).message ?? error).split("\n")[0]}`;
    throw new ApiError("CHAIN_UNAVAILABLE", reason);
  }
}

/** USDC held by `address`, at `blockNumber` or the latest block. */
export function usdcBalanceOf(address: `0x${string}`, blockNumber?: bigint): Promise<bigint> {
  return publicClient().readContract({ address: chainSettings().usdcAddress, abi: erc20Abi, functionName: "balanceOf", args: [address], blockNumber });
}
