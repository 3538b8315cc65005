// What every way of running agentbank does first: configuration, the database (migrations), the test
// clock, the custodial keys and the chain check. A bad setting stops the process with one line.
import { ChainStartError, initChain } from "./chain";
import { refreshTestClock } from "./clock";
import { ConfigError, forgetSecrets, initConfig, type Config } from "./config";
import { DatabaseInUse, openDatabase } from "./db";

/** Prints one line and exits 1 for the start-up errors an operator fixes; rethrows anything else. */
function fatal(error: unknown, kind: string): never {
  console.error(`agentbank: ${kind} error: ${(error as Error).message}`);
  process.exit(1);
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  try {
    return initConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) fatal(error, "configuration");
    throw error;
  }
}

export async function boot(env: Env = process.env): Promise<Config> {
  // Everything the service writes (database, mnemonic file, backups) is the owner's alone.
  process.umask(0o077);
  const config = loadConfig(env);
  forgetSecrets(env);
  try {
    await openDatabase(config);
  } catch (error) {
    if (error instanceof DatabaseInUse) fatal(error, "database");
    throw error;
  }
  if (config.testClock) await refreshTestClock();
  try {
    await initChain();
  } catch (error) {
    if (error instanceof ChainStartError) fatal(error, "chain");
    throw error;
  }
  return config;
}
