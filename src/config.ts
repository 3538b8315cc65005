// Configuration comes from the environment only (Bun also reads a .env file), validated once at start.
// A bad value stops the process with one line naming the variable.

export type Config = ReturnType<typeof configFrom>;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === "" ? fallback : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name, String(fallback));
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function decimal(env: Env, name: string, fallback: string): string {
  const raw = read(env, name, fallback);
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name}: expected a positive decimal number, got "${raw}"`);
  return raw;
}

function bool(env: Env, name: string): boolean {
  const raw = read(env, name, "false").toLowerCase();
  if (raw !== "true" && raw !== "false") throw new ConfigError(`${name}: expected true or false, got "${raw}"`);
  return raw === "true";
}

function referenceRates(env: Env): Record<string, string> {
  const raw = read(env, "REFERENCE_RATES", "USD=1,USDC=1,USDT=1,EUR=1.08,BTC=95000");
  const rates: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const [code, rate] = pair.split("=").map((part) => part.trim());
    if (!code || !rate || !/^\d+(\.\d{1,8})?$/.test(rate) || Number(rate) === 0) {
      throw new ConfigError(`REFERENCE_RATES: expected CODE=rate pairs like USD=1,EUR=1.08, got "${raw}"`);
    }
    rates[code] = rate;
  }
  for (const code of ["USD", "USDC", "USDT", "EUR", "BTC"]) {
    if (!rates[code]) throw new ConfigError(`REFERENCE_RATES: missing a rate for ${code}`);
  }
  return rates;
}

/** A name /mcp answers to besides its own: a host name or IP, with or without a port (any port). */
export type HostName = { hostname: string; port: number | null };

function hostNames(env: Env, name: string): HostName[] {
  return read(env, name, "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(:(\d{1,5}))?$/i.exec(entry);
      // The URL parser writes each name the way it reads a Host header (lower case, IPv6 compressed).
      const hostname = match ? URL.parse(`http://${match[1]}`)?.hostname : undefined;
      const port = match?.[6] === undefined ? null : Number(match[6]);
      if (!hostname || (port !== null && (port < 1 || port > 65535))) {
        throw new ConfigError(`${name}: expected host names, each with an optional :port, separated by commas (bank.example.com,bank.example.com:8443), got "${entry}"`);
      }
      return { hostname, port };
    });
}

/** The layer-2 chain: configured only when the RPC, the chain id and the USDC contract are all set. */
function chain(env: Env) {
  const rpcUrl = env.CHAIN_RPC_URL || undefined;
  const chainIdRaw = env.CHAIN_ID || undefined;
  const usdcAddress = env.USDC_ADDRESS || undefined;
  // One space between words: the BIP-39 seed is derived from the exact phrase.
  const mnemonic = env.MASTER_MNEMONIC?.trim().split(/\s+/).join(" ") || undefined;
  if (mnemonic && ![12, 15, 18, 21, 24].includes(mnemonic.split(" ").length)) {
    throw new ConfigError("MASTER_MNEMONIC: expected a BIP-39 phrase of 12 to 24 words");
  }
  const confirmations = integer(env, "CONFIRMATIONS", 2, 1, 1000);
  const given = [rpcUrl, chainIdRaw, usdcAddress].filter(Boolean).length;
  if (given === 0) return { configured: false as const, mnemonic, confirmations };
  if (given !== 3) throw new ConfigError("CHAIN_RPC_URL, CHAIN_ID and USDC_ADDRESS: set all three, or none to run without a chain");
  if (!/^https?:\/\/\S+$/.test(rpcUrl!)) throw new ConfigError(`CHAIN_RPC_URL: expected an http(s) URL, got "${rpcUrl}"`);
  const chainId = integer(env, "CHAIN_ID", 0, 1, 2 ** 53 - 1);
  if (!/^0x[0-9a-fA-F]{40}$/.test(usdcAddress!)) throw new ConfigError(`USDC_ADDRESS: expected a 0x address, got "${usdcAddress}"`);
  return { configured: true as const, rpcUrl: rpcUrl!, chainId, usdcAddress: usdcAddress as `0x${string}`, mnemonic, confirmations };
}

/** The configuration the environment gives; a bad value throws a ConfigError naming the variable. */
function configFrom(env: Env) {
  const synchronous = read(env, "DB_SYNCHRONOUS", "FULL").toUpperCase();
  if (synchronous !== "FULL" && synchronous !== "NORMAL") {
    throw new ConfigError(`DB_SYNCHRONOUS: expected FULL or NORMAL, got "${synchronous}"`);
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl)) throw new ConfigError(`DATABASE_URL: expected a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@]*@/, "//…@")}"`);
  return {
    port: integer(env, "PORT", 3000, 0, 65535),
    host: read(env, "HOST", "127.0.0.1"),
    databasePath: read(env, "DATABASE_PATH", "./data/agentbank.db"),
    databaseUrl,
    dbPoolSize: integer(env, "DB_POOL_SIZE", 16, 1, 1000),
    adminApiKey: env.ADMIN_API_KEY || undefined,
    rateLimitDefault: integer(env, "RATE_LIMIT_DEFAULT", 100, 1, 1_000_000_000),
    rateLimitWindowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1, 86_400),
    rateLimitPublic: integer(env, "RATE_LIMIT_PUBLIC", 300, 1, 1_000_000_000),
    mcpAllowedHosts: hostNames(env, "MCP_ALLOWED_HOSTS"),
    negotiationApprovalThreshold: decimal(env, "NEGOTIATION_APPROVAL_THRESHOLD", "1000"),
    referenceRates: referenceRates(env),
    webhookAllowPrivateNetworks: bool(env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS"),
    dbSynchronous: synchronous as "FULL" | "NORMAL",
    testClock: bool(env, "TEST_CLOCK"),
    chain: chain(env),
  };
}

/** The configuration in force, set once at start by main.ts. */
export let config: Config;

export function initConfig(env: Env = process.env): Config {
  config = configFrom(env);
  return config;
}
