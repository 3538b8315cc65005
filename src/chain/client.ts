// The viem clients for the configured chain. Only src/chain imports viem.
import { createPublicClient, defineChain, http, type PublicClient } from "viem";
import { config } from "../config";
import { ApiError } from "../errors";

const RPC_TIMEOUT_MS = 10_000;
const NETWORKS: Record<number, string> = { 8453: "base", 84532: "base-sepolia", 31337: "anvil" };

let client: PublicClient | null = null;

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

/** Runs an RPC call; a failure becomes 503 CHAIN_UNAVAILABLE for the HTTP caller. */
export async function rpc<T>(call: (client: PublicClient) => Promise<T>): Promise<T> {
  try {
    return await call(publicClient());
  } catch (error) {
    throw new ApiError("CHAIN_UNAVAILABLE", `the chain RPC did not answer: ${String((error as Error).message ?? error).split("\n")[0]}`);
  }
}
