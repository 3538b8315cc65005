// Start-up of the chain side: keys always (every agent has a deposit address), the RPC check and the
// deposit cursor when a chain is configured.
import { config } from "../config";
import { read } from "../db";
import { logLine } from "../log";
import { chainSettings, verifyChain } from "./client";
import { initWatchCursor } from "./watcher";
import { firstDepositAddress } from "./addresses";
import { ChainStartError, initKeys } from "./keys";

export { ChainStartError };

export async function initChain(): Promise<void> {
  const { mnemonic, passphrase } = config.chain;
  const inMemory = !config.databaseUrl && config.databasePath === ":memory:";
  initKeys({ mnemonic, passphrase, folder: inMemory ? null : config.dataFolder, shared: Boolean(config.databaseUrl) }, await read(firstDepositAddress()));
  if (!config.chain.configured) return;
  try {
    await verifyChain();
  } catch (error) {
    if (error instanceof ChainStartError) throw error;
    logLine({ level: "warn", msg: `the chain RPC ${chainSettings().rpcUrl} did not answer at start; the chain jobs check it again until it does` });
    return;
  }
  await initWatchCursor();
}
