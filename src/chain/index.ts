// Start-up of the chain side: keys always (every agent has a deposit address), the RPC check and the
// deposit cursor when a chain is configured.
import { config } from "../config";
import { chainSettings, publicClient } from "./client";
import { initDepositCursor } from "./deposits";
import { initKeys } from "./keys";

export class ChainStartError extends Error {}

export async function initChain(): Promise<void> {
  initKeys(config.chain.mnemonic, config.databasePath);
  if (!config.chain.configured) return;
  const expected = chainSettings().chainId;
  let actual: number;
  try {
    actual = await publicClient().getChainId();
  } catch (error) {
    console.error(`agentbank: warning: the chain RPC ${chainSettings().rpcUrl} did not answer at start; chain routes answer 503 until it does`);
    return;
  }
  if (actual !== expected) throw new ChainStartError(`CHAIN_ID is ${expected} but the RPC at CHAIN_RPC_URL serves chain ${actual}`);
  await initDepositCursor();
}
