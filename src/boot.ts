// What every way of running agentbank does first: configuration, the database (migrations), the test
// clock, the custodial keys and the chain check. A bad setting stops the process with one JSON line.
import { ChainStartError, initChain } from "./chain";
import { refreshTestClock } from "./clock";
import { ConfigError, forgetSecrets, initConfig, type Config } from "./config";
import { DatabaseInUse, openDatabase } from "./db";
import { exitWith } from "./log";

/** One JSON line and exit 1 for the start-up errors an operator fixes; anything else is rethrown. */
const fatal = (error: unknown, kind: string): never => exitWith(1, `${kind} error: ${(error as Error).message}`);

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
