import { index, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { int, money, timestampMs } from "../db/columns";
import { agents } from "../agents/schema";

/** Each agent's custodial deposit address: BIP-44 index from 1 upward (0 is the treasury), never reused. */
export const depositAddresses = sqliteTable(
  "deposit_addresses",
  {
    agentId: text("agent_id").primaryKey().references(() => agents.id),
    addressIndex: int("address_index").notNull(),
    address: text("address").notNull(),
  },
  (table) => [
    uniqueIndex("deposit_addresses_index_idx").on(table.addressIndex),
    uniqueIndex("deposit_addresses_address_idx").on(table.address),
  ],
);

/** USDC transfers credited to agents: the unique (txHash, logIndex) credits each log once. */
export const chainDeposits = sqliteTable(
  "chain_deposits",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    txHash: text("tx_hash").notNull(),
    logIndex: int("log_index").notNull(),
    blockNumber: int("block_number").notNull(),
    fromAddress: text("from_address").notNull(),
    amount: money("amount").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (table) => [uniqueIndex("chain_deposits_log_idx").on(table.txHash, table.logIndex)],
);

/**
 * PENDING (debited, not signed) → SUBMITTED (signed transaction stored, then broadcast) →
 * CONFIRMED | FAILED (funds returned). rawTx is stored before the broadcast, so a restart sends the
 * same transaction again instead of a second one.
 */
export const withdrawals = sqliteTable(
  "withdrawals",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull().references(() => agents.id),
    toAddress: text("to_address").notNull(),
    amount: money("amount").notNull(),
    currency: text("currency").notNull(),
    status: text("status").notNull(),
    nonce: int("nonce"),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    /** The block of the successful receipt (CONFIRMED on chain). */
    receiptBlock: int("receipt_block"),
    /** Set when toAddress is another agent's deposit address: settled in the ledger, no transaction. */
    internalAgentId: text("internal_agent_id").references(() => agents.id),
    error: text("error"),
    createdAt: timestampMs("created_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (table) => [
    index("withdrawals_agent_id_idx").on(table.agentId, table.createdAt),
    index("withdrawals_status_idx").on(table.status),
  ],
);

/** USDC moved into or out of the treasury, as the chain watcher saw it in confirmed blocks. */
export const treasuryTransfers = sqliteTable(
  "treasury_transfers",
  {
    txHash: text("tx_hash").notNull(),
    logIndex: int("log_index").notNull(),
    blockNumber: int("block_number").notNull(),
    /** "in" (funding, returns) or "out" (withdrawals, x402 settlements). */
    direction: text("direction").notNull(),
    counterparty: text("counterparty").notNull(),
    amount: money("amount").notNull(),
    /** The operator's explanation of a movement the service did not make (POST /admin/chain/acknowledge). */
    acknowledged: text("acknowledged"),
  },
  (table) => [primaryKey({ columns: [table.txHash, table.logIndex] })],
);

/** The treasury's EIP-3009 authorizations seen used on chain (AuthorizationUsed), by nonce. */
export const treasuryAuthorizations = sqliteTable("treasury_authorizations", {
  nonce: text("nonce").primaryKey(),
  txHash: text("tx_hash").notNull(),
  blockNumber: int("block_number").notNull(),
});
