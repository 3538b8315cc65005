// The audit log's first entry of every start: the configuration the service runs with, as the operator
// `system`. Only what is not secret: a key, a mnemonic or a password is recorded as set or not, a URL
// that may carry credentials (DATABASE_URL, CHAIN_RPC_URL, whose path often holds a provider's key)
// by its host alone. Listed field by field, so that a setting added later shows here only once someone
// has decided it is not a secret.
import type { Config } from "../config";
import { write } from "../db";
import { toMajor } from "../money";
import { recordAudit, SYSTEM_OPERATOR } from "../operators/audit";
import { VERSION } from "../version";

/** host:port of a URL, without user, password, path or query. */
const hostOf = (url: string) => URL.parse(url)?.host ?? "(unparsable)";

export function configurationSeen(config: Config) {
  const { chain, mail } = config;
  return {
    version: VERSION,
    host: config.host,
    port: config.port,
    database: config.databaseUrl
      ? { engine: "postgresql", server: hostOf(config.databaseUrl), name: URL.parse(config.databaseUrl)?.pathname.slice(1) ?? null, poolSize: config.dbPoolSize }
      : { engine: "sqlite", path: config.databasePath, synchronous: config.dbSynchronous },
    adminApiKeySet: config.adminApiKey !== undefined,
    rateLimits: { perAgent: config.rateLimitDefault, windowSeconds: config.rateLimitWindowSeconds, publicPerAddress: config.rateLimitPublic },
    mcpAllowedHosts: config.mcpAllowedHosts.map(({ hostname, port }) => (port === null ? hostname : `${hostname}:${port}`)),
    negotiationApprovalThreshold: config.negotiationApprovalThreshold,
    referenceRates: config.referenceRates,
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    testClock: config.testClock,
    chain: chain.configured
      ? { configured: true, rpc: hostOf(chain.rpcUrl), chainId: chain.chainId, usdcAddress: chain.usdcAddress, confirmations: chain.confirmations, masterMnemonicFromEnvironment: chain.mnemonic !== undefined }
      : { configured: false, masterMnemonicFromEnvironment: chain.mnemonic !== undefined },
    x402Facilitator: {
      gasPerDay: config.x402FacilitatorGasPerDay,
      gasPerDayTotal: config.x402FacilitatorGasPerDayTotal,
      minAmount: toMajor(config.x402FacilitatorMinAmount, "USDC"),
      discoveryPerSeller: config.x402DiscoveryPerSeller,
      discoveryTotal: config.x402DiscoveryTotal,
    },
    mail: mail.smtp
      ? { smtp: `${mail.smtp.host}:${mail.smtp.port}`, tls: mail.smtp.secure, login: mail.smtp.auth !== undefined, from: mail.from.address }
      : { outbox: mail.outboxDir, from: mail.from.address },
    logLevel: config.logLevel,
    publicUrl: config.publicUrl,
    ownerKeyAtRegistration: config.ownerKeyAtRegistration,
    unclaimedPolicy: config.unclaimedPolicy,
  };
}

/** Records the start (before the service listens: the entry is there before any request). */
export const recordStart = (config: Config) =>
  write(() => recordAudit({ operator: SYSTEM_OPERATOR, action: "service.start", target: null, details: configurationSeen(config), requestId: null }));
