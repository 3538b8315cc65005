// Configuration comes from the environment only (Bun also reads a .env file), validated once at start.
// A bad value stops the process with one line naming the variable.
import { dirname, join } from "node:path";
import { isMailbox } from "./email";
import { LOG_LEVELS, setLogLevel } from "./log";

export type Config = ReturnType<typeof configFrom>;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/**
 * Every variable the service reads: its default ("" = unset) and what it does. loadConfig takes its
 * defaults from here and `agentbank --help` prints it, so the two cannot disagree.
 */
export const VARIABLES = {
  PORT: { default: "3000", meaning: "HTTP port; 0 picks a free port" },
  HOST: { default: "127.0.0.1", meaning: "bind address (0.0.0.0: every interface; put a TLS proxy in front)" },
  DATABASE_PATH: { default: "./data/agentbank.db", meaning: "SQLite file (created with its folder); :memory: allowed" },
  DATABASE_URL: { default: "", meaning: "postgres://user:password@host:5432/db: run on PostgreSQL instead of the file (several instances may share it; then MASTER_MNEMONIC, or the encrypted agentbank.mnemonic.enc in DATABASE_PATH's folder, is required)" },
  DB_POOL_SIZE: { default: "16", meaning: "PostgreSQL connections per instance" },
  ADMIN_API_KEY: { default: "", meaning: "operator key (Authorization: Bearer <key> on /admin/..., e.g. POST /admin/deposits); unset: every /admin route answers 404" },
  RATE_LIMIT_DEFAULT: { default: "100", meaning: "requests per window per agent key (per instance); each restricted key gets half, all of an agent's restricted keys together as much again" },
  RATE_LIMIT_WINDOW_SECONDS: { default: "60", meaning: "rate-limit window length" },
  RATE_LIMIT_PUBLIC: { default: "300", meaning: "requests per window per client address on public routes (not /health, not the docs)" },
  MCP_ALLOWED_HOSTS: { default: "", meaning: "names /mcp answers to besides its own (bound host and loopback names): host[:port],... for a public deployment (DNS-rebinding guard)" },
  NEGOTIATION_APPROVAL_THRESHOLD: { default: "1000", meaning: "USD value above which an accepted negotiation needs a human" },
  REFERENCE_RATES: { default: "USD=1,USDC=1,USDT=1,EUR=1.08,BTC=95000", meaning: "USD value of one unit, for tier limits and thresholds" },
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: { default: "false", meaning: "allow webhook, x402 and oracle targets on loopback and private ranges" },
  DB_SYNCHRONOUS: { default: "FULL", meaning: "SQLite: FULL (every acknowledged write survives power loss) or NORMAL" },
  TEST_CLOCK: { default: "false", meaning: "enables POST /admin/clock/advance (never in production)" },
  CHAIN_RPC_URL: { default: "", meaning: "layer-2 chain RPC (set CHAIN_RPC_URL, CHAIN_ID and USDC_ADDRESS together, or none: chain routes answer 503)" },
  CHAIN_ID: { default: "", meaning: "layer-2 chain id" },
  USDC_ADDRESS: { default: "", meaning: "USDC contract on that chain" },
  MASTER_MNEMONIC: { default: "", meaning: "BIP-39 phrase of the custodial keys, in plain text (a warning at start); unset: agentbank.mnemonic.enc beside the database (encrypted: agentbank keys encrypt), else agentbank.mnemonic (0600, plain), else one generated at first start into agentbank.mnemonic: back it up, then encrypt it" },
  MASTER_MNEMONIC_PASSPHRASE: { default: "", meaning: "the passphrase of agentbank.mnemonic.enc; unset: the systemd credential master-mnemonic-passphrase ($CREDENTIALS_DIRECTORY, LoadCredentialEncrypted=). Taken out of the environment once read, as MASTER_MNEMONIC is: child processes do not inherit either" },
  CONFIRMATIONS: { default: "2", meaning: "blocks before a deposit is credited or a withdrawal confirmed" },
  X402_FACILITATOR_GAS_PER_DAY: { default: "3000000", meaning: "gas the treasury may spend settling a GOLD or PLATINUM seller's x402 sales per UTC day; SILVER half, BRONZE a quarter, UNRATED a tenth (a settlement uses ~80,000; reserved at 150,000 until mined); 0: the facilitator settles nothing" },
  X402_FACILITATOR_GAS_PER_DAY_TOTAL: { default: "30000000", meaning: "gas the treasury may spend settling every seller's x402 sales together per UTC day; 0: the facilitator settles nothing" },
  X402_FACILITATOR_MIN_AMOUNT: { default: "0.01", meaning: "smallest x402 payment (USDC) the facilitator verifies or settles; below it: invalid_exact_evm_authorization_value" },
  X402_DISCOVERY_PER_SELLER: { default: "20", meaning: "resources one seller may have in the facilitator's discovery list (the oldest never sold make room for a new one)" },
  X402_DISCOVERY_TOTAL: { default: "1000", meaning: "resources the facilitator's discovery list holds for all sellers together" },
  SMTP_URL: { default: "", meaning: "smtp://[user:password@]host[:port] (STARTTLS when the server offers it; port 587 by default) or smtps://... (TLS; 465): the mail server; unset: every message is written to the outbox folder instead" },
  MAIL_FROM: { default: "agentbank <agentbank@localhost>", meaning: "the From of every message: an address, or Name <address>" },
  MAIL_OUTBOX_DIR: { default: "", meaning: "the outbox folder (one .eml file per message) when SMTP_URL is unset; unset: outbox/ in the data folder, DATABASE_PATH's folder (also with DATABASE_URL)" },
  LOG_LEVEL: { default: "info", meaning: "debug, info, warn or error: the lowest level of log line written (every line is one JSON object); with debug a command that fails also gives its stack trace" },
  METRICS_PORT: { default: "", meaning: "a second listener serving only GET /metrics (Prometheus text format) on METRICS_HOST; 0 picks a free port; unset: none" },
  METRICS_HOST: { default: "127.0.0.1", meaning: "the address METRICS_PORT binds (keep it on loopback or a private network: it takes no credential)" },
  METRICS_TOKEN: { default: "", meaning: "GET /metrics on the main port too, with Authorization: Bearer <token> (16 or more characters); unset: /metrics on the main port answers 404" },
  PUBLIC_URL: { default: "", meaning: "the address owners reach this service at (https://bank.example.com), for the links in mail; unset: http://HOST:PORT as bound" },
  OWNER_KEY_AT_REGISTRATION: { default: "false", meaning: "true: registration also answers an owner key (po_…), as before owner accounts; false: the owner claims the agent by the link mailed to ownerEmail (agentbank dev: true)" },
  UNCLAIMED_POLICY: { default: "approvalAbove=10", meaning: "the spending policy of an agent nobody has claimed yet, in USD value per currency: approvalAbove=10,perTransaction=50,daily=100 (any of them), or none" },
} as const satisfies Record<string, { default: string; meaning: string }>;

export type Variable = keyof typeof VARIABLES;

function read(env: Env, name: Variable): string {
  const value = env[name];
  return value === undefined || value === "" ? VARIABLES[name].default : value;
}

/** A variable whose default is unset: undefined when it is not given. */
const optional = (env: Env, name: Variable): string | undefined => read(env, name) || undefined;

function integer(env: Env, name: Variable, min: number, max: number): number {
  const raw = read(env, name);
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function decimal(env: Env, name: Variable): string {
  const raw = read(env, name);
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name}: expected a positive decimal number, got "${raw}"`);
  return raw;
}

/** A positive USDC amount in major units ("0.01"), as minor units (6 decimals). */
function usdcAmount(env: Env, name: Variable): bigint {
  const raw = read(env, name);
  const match = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(raw);
  const minor = match ? BigInt(match[1]! + (match[2] ?? "").padEnd(6, "0")) : 0n;
  if (minor === 0n) throw new ConfigError(`${name}: expected a positive USDC amount with at most 6 decimals (e.g. 0.01), got "${raw}"`);
  return minor;
}

function oneOf<const T extends string>(env: Env, name: Variable, values: readonly T[]): T {
  const raw = read(env, name);
  const value = values.find((option) => option.toLowerCase() === raw.toLowerCase());
  if (!value) throw new ConfigError(`${name}: expected ${values.length > 2 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : values.join(" or ")}, got "${raw}"`);
  return value;
}

const bool = (env: Env, name: Variable): boolean => oneOf(env, name, ["true", "false"]) === "true";

function referenceRates(env: Env): Record<string, string> {
  const raw = read(env, "REFERENCE_RATES");
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

function hostNames(env: Env, name: Variable): HostName[] {
  return read(env, name)
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

/** Where /metrics is served: its own listener, the main port behind a token, both, or neither (null). */
function metrics(env: Env) {
  const port = optional(env, "METRICS_PORT") === undefined ? null : integer(env, "METRICS_PORT", 0, 65535);
  const token = optional(env, "METRICS_TOKEN") ?? null;
  if (token !== null && !/^[\x21-\x7e]{16,512}$/.test(token)) throw new ConfigError("METRICS_TOKEN: expected 16 to 512 printable characters without spaces");
  if (port !== null && port !== 0 && port === integer(env, "PORT", 0, 65535)) throw new ConfigError(`METRICS_PORT: expected a port other than PORT (${port})`);
  return port === null && token === null ? null : { port, host: read(env, "METRICS_HOST"), token };
}

/** Where links in mail point: PUBLIC_URL without a trailing slash; null: the bound address (main.ts knows it). */
function publicUrl(env: Env): string | null {
  const raw = optional(env, "PUBLIC_URL");
  if (raw === undefined) return null;
  const url = URL.parse(raw);
  if (!url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash || url.username) throw new ConfigError(`PUBLIC_URL: expected an http(s) address with no query, like https://bank.example.com, got "${raw}"`);
  return url.href.replace(/\/$/, "");
}

const UNCLAIMED_PARTS = ["approvalAbove", "perTransaction", "daily"] as const;
/** Each part of the unclaimed policy as a USD value (decimal text); {} for none. */
function unclaimedPolicy(env: Env): Partial<Record<(typeof UNCLAIMED_PARTS)[number], string>> {
  const raw = read(env, "UNCLAIMED_POLICY").trim();
  if (raw === "none") return {};
  const parts: Partial<Record<(typeof UNCLAIMED_PARTS)[number], string>> = {};
  for (const pair of raw.split(",")) {
    const [name, value] = pair.split("=").map((part) => part.trim());
    const part = UNCLAIMED_PARTS.find((known) => known === name);
    if (!part || !value || !/^\d+(\.\d{1,2})?$/.test(value) || parts[part] !== undefined) {
      throw new ConfigError(`UNCLAIMED_POLICY: expected none, or ${UNCLAIMED_PARTS.join(", ")} as name=USD value pairs like approvalAbove=10,daily=100, got "${raw}"`);
    }
    parts[part] = value;
  }
  return parts;
}

/** A secret as written in a file or a variable: its line end dropped, nothing else (it may end with spaces). */
export const withoutLineEnd = (text: string): string => text.replace(/[\r\n]+$/, "");

/** The layer-2 chain: configured only when the RPC, the chain id and the USDC contract are all set. */
function chain(env: Env) {
  const rpcUrl = optional(env, "CHAIN_RPC_URL");
  const chainIdRaw = optional(env, "CHAIN_ID");
  const usdcAddress = optional(env, "USDC_ADDRESS");
  // One space between words: the BIP-39 seed is derived from the exact phrase.
  const mnemonic = optional(env, "MASTER_MNEMONIC")?.trim().split(/\s+/).join(" ") || undefined;
  if (mnemonic && ![12, 15, 18, 21, 24].includes(mnemonic.split(" ").length)) {
    throw new ConfigError("MASTER_MNEMONIC: expected a BIP-39 phrase of 12 to 24 words");
  }
  const passphrase = withoutLineEnd(optional(env, "MASTER_MNEMONIC_PASSPHRASE") ?? "") || undefined;
  const confirmations = integer(env, "CONFIRMATIONS", 1, 1000);
  const given = [rpcUrl, chainIdRaw, usdcAddress].filter(Boolean).length;
  if (given === 0) return { configured: false as const, mnemonic, passphrase, confirmations };
  if (given !== 3) throw new ConfigError("CHAIN_RPC_URL, CHAIN_ID and USDC_ADDRESS: set all three, or none to run without a chain");
  if (!/^https?:\/\/\S+$/.test(rpcUrl!)) throw new ConfigError(`CHAIN_RPC_URL: expected an http(s) URL, got "${rpcUrl}"`);
  const chainId = integer(env, "CHAIN_ID", 1, 2 ** 53 - 1);
  if (!/^0x[0-9a-fA-F]{40}$/.test(usdcAddress!)) throw new ConfigError(`USDC_ADDRESS: expected a 0x address, got "${usdcAddress}"`);
  return { configured: true as const, rpcUrl: rpcUrl!, chainId, usdcAddress: usdcAddress as `0x${string}`, mnemonic, passphrase, confirmations };
}

/** SMTP_URL as nodemailer's SMTP transport takes it; null when unset (mail goes to the outbox folder). */
function smtpServer(env: Env) {
  const raw = optional(env, "SMTP_URL");
  if (!raw) return null;
  const problem = new ConfigError(`SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://..., got "${raw.replace(/\/\/.*@/, "//…@")}"`);
  const url = URL.parse(raw);
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname || !["", "/"].includes(url.pathname) || url.search || url.hash || url.port === "0") throw problem;
  const secure = url.protocol === "smtps:";
  let user: string, pass: string;
  try {
    [user, pass] = [decodeURIComponent(url.username), decodeURIComponent(url.password)];
  } catch {
    throw problem;
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass } : undefined,
  };
}

/** MAIL_FROM: `address` or `Name <address>` (the name may be quoted). */
function sender(env: Env): { name: string; address: string } {
  const raw = read(env, "MAIL_FROM").trim();
  const match = /^(?:"?([^"<>\x00-\x1f\x7f]{0,100}?)"?\s*<([^<>]*)>|([^<>\s]+))$/.exec(raw);
  const address = match?.[2] ?? match?.[3] ?? "";
  if (!match || !isMailbox(address)) throw new ConfigError(`MAIL_FROM: expected an address or Name <address>, got ${JSON.stringify(raw)}`);
  return { name: (match[1] ?? "").trim(), address };
}

/** Mail: SMTP_URL's server, else the outbox folder (in the data folder unless MAIL_OUTBOX_DIR says where). */
function mail(env: Env, dataFolder: string) {
  return { smtp: smtpServer(env), from: sender(env), outboxDir: optional(env, "MAIL_OUTBOX_DIR") ?? join(dataFolder, "outbox") };
}

/** The configuration the environment gives; a bad value throws a ConfigError naming the variable. */
function configFrom(env: Env) {
  const databaseUrl = optional(env, "DATABASE_URL");
  if (databaseUrl && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl)) throw new ConfigError(`DATABASE_URL: expected a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@]*@/, "//…@")}"`);
  const databasePath = read(env, "DATABASE_PATH");
  /** DATABASE_PATH's folder (also with DATABASE_URL): the mail outbox, the mnemonic file. */
  const dataFolder = dirname(databasePath === ":memory:" ? VARIABLES.DATABASE_PATH.default : databasePath);
  return {
    port: integer(env, "PORT", 0, 65535),
    host: read(env, "HOST"),
    databasePath,
    databaseUrl,
    dataFolder,
    dbPoolSize: integer(env, "DB_POOL_SIZE", 1, 1000),
    adminApiKey: optional(env, "ADMIN_API_KEY"),
    rateLimitDefault: integer(env, "RATE_LIMIT_DEFAULT", 1, 1_000_000_000),
    rateLimitWindowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 1, 86_400),
    rateLimitPublic: integer(env, "RATE_LIMIT_PUBLIC", 1, 1_000_000_000),
    mcpAllowedHosts: hostNames(env, "MCP_ALLOWED_HOSTS"),
    negotiationApprovalThreshold: decimal(env, "NEGOTIATION_APPROVAL_THRESHOLD"),
    referenceRates: referenceRates(env),
    webhookAllowPrivateNetworks: bool(env, "WEBHOOK_ALLOW_PRIVATE_NETWORKS"),
    dbSynchronous: oneOf(env, "DB_SYNCHRONOUS", ["FULL", "NORMAL"]),
    testClock: bool(env, "TEST_CLOCK"),
    chain: chain(env),
    x402FacilitatorGasPerDay: integer(env, "X402_FACILITATOR_GAS_PER_DAY", 0, 1_000_000_000_000),
    x402FacilitatorGasPerDayTotal: integer(env, "X402_FACILITATOR_GAS_PER_DAY_TOTAL", 0, 1_000_000_000_000),
    /** Minor units (USDC). */
    x402FacilitatorMinAmount: usdcAmount(env, "X402_FACILITATOR_MIN_AMOUNT"),
    x402DiscoveryPerSeller: integer(env, "X402_DISCOVERY_PER_SELLER", 0, 10_000),
    x402DiscoveryTotal: integer(env, "X402_DISCOVERY_TOTAL", 0, 1_000_000),
    mail: mail(env, dataFolder),
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS),
    publicUrl: publicUrl(env),
    metrics: metrics(env),
    ownerKeyAtRegistration: bool(env, "OWNER_KEY_AT_REGISTRATION"),
    unclaimedPolicy: unclaimedPolicy(env),
  };
}

/**
 * Key material read from the environment: taken out of it once the configuration holds it, so that no
 * child process (the backup's, anything spawned later) inherits it.
 */
export function forgetSecrets(env: Env): void {
  for (const name of ["MASTER_MNEMONIC", "MASTER_MNEMONIC_PASSPHRASE"] as const) {
    delete env[name];
    delete process.env[name];
  }
}

/** The configuration in force, set once at start by main.ts. */
export let config: Config;

export function initConfig(env: Env = process.env): Config {
  config = configFrom(env);
  setLogLevel(config.logLevel);
  return config;
}
