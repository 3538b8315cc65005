import { index, integer, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";

export type PaymentStatus = "PENDING" | "SETTLED" | "REFUNDED";
export type PaymentScheme = "exact" | "upto";

/**
 * One payment for an HTTP 402 resource. PENDING from the debit (agent's USDC → x402 in flight) until
 * the chain decides: SETTLED once the treasury's EIP-3009 authorization (authorizationNonce) is used
 * on chain, REFUNDED once it provably never can be (validBefore passed in a confirmed block where it
 * was not used). What the resource answers never decides it. internalAgentId is set when payTo is
 * another agent's deposit address: settling credits that agent in the ledger.
 * An `upto` payment (x402/upto.ts) authorizes a maximum (amount) through a Permit2 permit: the
 * maximum is held (holdId) while PENDING; SETTLED with the amount the chain shows moved
 * (settledAmount), the rest released; REFUNDED (the hold released) once the permit is past its
 * deadline unused.
 */
export const x402Payments = table(
  "x402_payments",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    url: text().notNull(),
    method: text().notNull(),
    amount: integer().notNull(),
    currency: text<"USDC">().notNull(),
    payTo: text().notNull(),
    internalAgentId: text().references(() => agents.columns.id),
    network: text().notNull(),
    x402Version: integer().notNull(),
    status: text<PaymentStatus>().notNull(),
    scheme: text<PaymentScheme>().notNull().default("'exact'"),
    /** What the payment charged, once SETTLED (exact: amount; upto: what the chain shows moved, at most amount). */
    settledAmount: integer(),
    /** upto: the ledger hold of the maximum (holds.id), closed when the payment is decided. */
    holdId: integer(),
    /**
     * The EIP-3009 nonce (0x…, lowercase) of the treasury's authorization, and its validBefore (s);
     * for upto, the Permit2 nonce (as 32 bytes, 0x…) and the permit's deadline (usable up to and
     * including it). Null only on payments from before they were recorded (sqlite 0001).
     */
    authorizationNonce: text(),
    validBefore: integer(),
    /** The settlement transaction: what the server claimed, then what the chain watcher saw. */
    transaction: text(),
    resourceStatus: integer(),
    error: text(),
    /** The restricted key (pp_r_…) that made it; null: the agent key. Its chain governs what it causes later (keys/commitments.ts). */
    keyId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("x402_payments_agent_id_idx").on(t.agentId, t.createdAt),
    index("x402_payments_status_idx").on(t.status),
    uniqueIndex("x402_payments_nonce_idx").on(t.authorizationNonce),
  ],
);

/**
 * Resources verified through the facilitator that carried the bazaar extension: one row per (seller,
 * resource URL). Listed only once a sale of that seller and URL settled (x402_sales); expires_at is
 * when it goes unless a sale is newer than X402 discovery's lifetime then (facilitator/discovery.ts).
 */
export const x402DiscoveredResources = table(
  "x402_discovered_resources",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    resource: text().notNull(),
    /** The advertised entry as JSON: x402Version, accepts, description, mimeType, extensions. */
    entry: text().notNull(),
    /** Rows from before it: due at once, so the expiry job keeps those with a recent sale and drops the rest. */
    expiresAt: integer().notNull().default(0),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    uniqueIndex("x402_discovered_resources_resource_idx").on(t.agentId, t.resource),
    index("x402_discovered_resources_created_idx").on(t.createdAt),
    index("x402_discovered_resources_expires_idx").on(t.expiresAt),
  ],
);

/**
 * One row per UTC day (its first ms) on which the facilitator claimed a sale for the chain. A claim
 * updates it first: the row lock makes every claim of the day, on every instance, check the day's
 * gas budgets after the ones before it committed (facilitator/gas.ts).
 */
export const x402GasDays = table("x402_gas_days", {
  day: integer().primaryKey(),
  /** Claims checked against the day's budgets (refused ones too). */
  claims: integer().notNull(),
});

export type ChannelStatus = "OPEN" | "CLOSING" | "CLOSED";

/**
 * One x402 `batch-settlement` channel an agent pays a resource through. The treasury is the channel's
 * payer and voucher signer; `salt` (random per channel) makes it this agent's own. The deposit is the
 * agent's hold (holds, reference x402_channel/id) from the moment it is signed; each charged voucher is
 * paid out of that hold (`charged`); closing pays what the chain shows claimed beyond that and gives
 * the rest of the hold back. `signed`: the highest cumulative voucher amount signed so far.
 * OPEN → CLOSED (the seller refunded), or OPEN → CLOSING (the treasury's withdrawal waits out the
 * channel's delay) → CLOSED.
 */
export const x402Channels = table(
  "x402_channels",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    /** The resource the channel was opened for: closing asks it for the cooperative refund. */
    url: text().notNull(),
    network: text().notNull(),
    payTo: text().notNull(),
    receiverAuthorizer: text().notNull(),
    asset: text().notNull(),
    /** The EIP-712 domain of the asset (its name and version), as the resource named it. */
    assetName: text().notNull(),
    assetVersion: text().notNull(),
    withdrawDelay: integer().notNull(),
    salt: text().notNull(),
    /** The channel's id on chain (0x…, lowercase): the EIP-712 hash of its config. */
    channelId: text().notNull(),
    currency: text<"USDC">().notNull(),
    deposit: integer().notNull(),
    /**
     * The deposit's ERC-3009 nonce (0x…, lowercase) and validBefore (s): until the chain shows it used
     * or expired, the deposit may still land in the escrow, so the channel cannot be closed.
     */
    depositNonce: text().notNull(),
    depositValidBefore: integer().notNull(),
    signed: integer().notNull(),
    charged: integer().notNull(),
    status: text<ChannelStatus>().notNull(),
    /**
     * CLOSING: the seller did not refund, so the treasury started the escrow's timed withdrawal; it
     * can be finalized from this time on (ms). Null otherwise.
     */
    withdrawableAt: integer(),
    /** What the close gave back to the treasury on chain (null until CLOSED), and its transaction. */
    refunded: integer(),
    transaction: text(),
    /** The restricted key whose request opened it; only that key's requests use it. */
    keyId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
    closedAt: integer(),
  },
  (t) => [uniqueIndex("x402_channels_channel_id_idx").on(t.channelId), index("x402_channels_agent_idx").on(t.agentId, t.status, t.createdAt), index("x402_channels_status_key_idx").on(t.status, t.keyId)],
);
