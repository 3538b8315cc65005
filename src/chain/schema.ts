import { index, integer, primaryKey, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";

/** Each agent's custodial deposit address: BIP-44 index from 1 upward (0 is the treasury), never reused. */
export const depositAddresses = table(
  "deposit_addresses",
  {
    agentId: text().primaryKey().references(() => agents.columns.id),
    addressIndex: integer().notNull(),
    address: text().notNull(),
  },
  (t) => [
    uniqueIndex("deposit_addresses_index_idx").on(t.addressIndex),
    uniqueIndex("deposit_addresses_address_idx").on(t.address),
  ],
);

/** USDC transfers credited to agents: the unique (txHash, logIndex) credits each log once. */
export const chainDeposits = table(
  "chain_deposits",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    txHash: text().notNull(),
    logIndex: integer().notNull(),
    blockNumber: integer().notNull(),
    fromAddress: text().notNull(),
    amount: integer().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex("chain_deposits_log_idx").on(t.txHash, t.logIndex)],
);

export type WithdrawalStatus = "PENDING" | "SUBMITTED" | "CONFIRMED" | "FAILED";

/**
 * PENDING (debited, not signed) → SUBMITTED (signed transaction stored, then broadcast) →
 * CONFIRMED | FAILED (funds returned). rawTx is stored before the broadcast, so a restart sends the
 * same transaction again instead of a second one.
 */
export const withdrawals = table(
  "withdrawals",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    toAddress: text().notNull(),
    amount: integer().notNull(),
    currency: text<"USDC">().notNull(),
    status: text<WithdrawalStatus>().notNull(),
    nonce: integer(),
    txHash: text(),
    rawTx: text(),
    /** The block of the successful receipt (CONFIRMED on chain). */
    receiptBlock: integer(),
    /** Set when toAddress is another agent's deposit address: settled in the ledger, no transaction. */
    internalAgentId: text().references(() => agents.columns.id),
    error: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index("withdrawals_agent_id_idx").on(t.agentId, t.createdAt),
    index("withdrawals_status_idx").on(t.status),
  ],
);

/** USDC moved into or out of the treasury, as the chain watcher saw it in confirmed blocks. */
export const treasuryTransfers = table(
  "treasury_transfers",
  {
    txHash: text().notNull(),
    logIndex: integer().notNull(),
    blockNumber: integer().notNull(),
    /** "in" (funding, returns) or "out" (withdrawals, x402 settlements). */
    direction: text<"in" | "out">().notNull(),
    counterparty: text().notNull(),
    amount: integer().notNull(),
    /** The operator's explanation of a movement the service did not make (POST /admin/chain/acknowledge). */
    acknowledged: text(),
  },
  (t) => [primaryKey(t.txHash, t.logIndex)],
);

/** The treasury's EIP-3009 authorizations seen used on chain (AuthorizationUsed), by nonce. */
export const treasuryAuthorizations = table("treasury_authorizations", {
  nonce: text().primaryKey(),
  txHash: text().notNull(),
  blockNumber: integer().notNull(),
});

export type SaleStatus = "SUBMITTING" | "SUBMITTED" | "SETTLED" | "FAILED";
export type SaleScheme = "exact" | "upto";

/**
 * One EIP-3009 authorization a seller agent asked agentbank's x402 facilitator (src/x402/facilitator)
 * to settle; declared with the chain's records because the chain watcher credits it (chain/sales.ts).
 * The unique (payer, nonce)
 * is what makes a second settle of the same authorization answer the first one's outcome instead of
 * submitting it again. SUBMITTING (claimed, no transaction yet) → SUBMITTED (transaction broadcast)
 * → SETTLED | FAILED (the receipt). creditedAt: the chain watcher credited the seller (once, from the
 * Transfer log in a confirmed block). gas: the gas limit while unknown, the gas used once mined (the
 * seller's daily gas cap counts it).
 */
export const x402Sales = table(
  "x402_sales",
  {
    id: text().primaryKey(),
    agentId: text().notNull().references(() => agents.columns.id),
    /** exact (EIP-3009: nonce is its bytes32, 0x… lowercase) or upto (Permit2: nonce is "permit2:" and its uint256 in decimal). */
    scheme: text<SaleScheme>().notNull().default("'exact'"),
    payer: text().notNull(),
    nonce: text().notNull(),
    payTo: text().notNull(),
    /** exact: the authorization's value; upto: the amount the seller settles (at most the permitted one). */
    amount: integer().notNull(),
    resource: text(),
    status: text<SaleStatus>().notNull(),
    txHash: text(),
    /**
     * The signed settlement transaction and the treasury nonce it carries, stored with txHash before it
     * is broadcast: recovery (facilitator/recovery.ts) re-sends this same transaction, never a second one.
     */
    rawTx: text(),
    treasuryNonce: integer(),
    /** The payment-identifier extension's id the buyer sent: a second settle with it answers this sale. */
    paymentId: text(),
    gas: integer().notNull(),
    error: text(),
    creditedAt: integer(),
    /** The seller's restricted key that settled it; null: the agent key. What comes in is credited whatever its state. */
    keyId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    uniqueIndex("x402_sales_authorization_idx").on(t.payer, t.nonce),
    uniqueIndex("x402_sales_payment_id_idx").on(t.agentId, t.payer, t.paymentId),
    // SUBMITTED sales, which recovery looks up by hash.
    index("x402_sales_status_idx").on(t.status),
    index("x402_sales_agent_idx").on(t.agentId, t.createdAt),
    // The day's gas of every seller (x402/facilitator/gas.ts), and a discovered resource's sales (discovery.ts).
    index("x402_sales_created_idx").on(t.createdAt),
    index("x402_sales_resource_idx").on(t.agentId, t.resource),
  ],
);
