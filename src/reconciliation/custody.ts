// Custody, for GET /admin/ledger/check (docs/chain.md, "Custody"). At the block B the chain watcher has
// scanned up to, the USDC agentbank holds on chain — the treasury, the internal settlement signer and
// every deposit address — against what the ledger owes: the agents' balances, and the money debited from
// agents that at B was still on chain (x402 payments and withdrawals in flight). What is left is the
// operator's float.
//
// - Read at B on both sides: a deposit is credited only once its block is ≤ B, so deposits awaiting
//   confirmation are neither in the balances nor owed. There are no sweeps (deposits stay on their
//   address); a sweep would move USDC between two figures of onChain and lower what an address must hold.
// - A float below zero is a shortfall: reported, not a failure, because /admin/deposits credits USDC the
//   chain never saw (fiat rails, tests), so the ledger may owe more than the chain holds by the operator's
//   choice. What the ledger alone cannot explain is checked exactly elsewhere: the treasury's balance (the
//   chain reconciliation) and each deposit address below.
// - Each deposit address must hold what was credited to it from the chain (deposits and facilitator
//   sales, chain_deposits up to B). Less is a failure (credited USDC that is not there); more is reported
//   only: USDC the watcher does not credit — sent before its first block, or by the service's own keys
//   (the treasury's transfers to custodial addresses fail the chain check themselves).
import type { Address } from "viem";
import type { BalanceRead } from "../chain/balances";
import { all, get, type Op } from "../db";
import { toMajor } from "../money";
import { type AgentId } from "../ids";

const LIMIT = 100;
const usdc = (minor: bigint) => toMajor(minor, "USDC");
const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);

type Totals = { owed: bigint | null; x402: bigint | null; withdrawals: bigint | null };
export type CustodyRecords = { owed: bigint; x402: bigint; withdrawals: bigint; addresses: { agentId: AgentId; address: Address; credited: bigint }[] };

/** What the ledger says at block `block` (whose timestamp is `cursorTime`); read in the same snapshot as the watcher's cursor. */
export function* custodyRecords(block: bigint, cursorTime: bigint): Op<CustodyRecords> {
  // An x402 payment to an outside payee has left once the chain used its treasury authorization; one to an
  // agent never leaves custody. A SETTLED one not seen used by B whose authorization was still valid at B
  // is used after B (one never used is the chain reconciliation's missingTransfers).
  const usedByB = "SELECT nonce FROM treasury_authorizations WHERE block_number <= ?";
  const totals = (yield* get<Totals>(
    `SELECT
       (SELECT CAST(SUM(balance) AS BIGINT) FROM accounts WHERE agent_id IS NOT NULL AND currency = 'USDC') AS owed,
       (SELECT CAST(SUM(amount) AS BIGINT) FROM x402_payments
         WHERE (status = 'PENDING' AND (internal_agent_id IS NOT NULL OR authorization_nonce IS NULL OR authorization_nonce NOT IN (${usedByB})))
            OR (status = 'SETTLED' AND internal_agent_id IS NULL AND valid_before > ? AND authorization_nonce NOT IN (${usedByB}))) AS x402,
       (SELECT CAST(SUM(amount) AS BIGINT) FROM withdrawals
         WHERE internal_agent_id IS NULL AND (status IN ('PENDING', 'SUBMITTED') OR (status = 'CONFIRMED' AND receipt_block > ?))
           AND (tx_hash IS NULL OR tx_hash NOT IN (SELECT tx_hash FROM treasury_transfers WHERE direction = 'out' AND block_number <= ?))) AS withdrawals`,
    block,
    cursorTime,
    block,
    block,
    block,
  ))!;
  const addresses = yield* all<{ agentId: AgentId; address: Address; credited: bigint }>(
    `SELECT d.agent_id AS "agentId", d.address, COALESCE(c.total, 0) AS credited FROM deposit_addresses d
     LEFT JOIN (SELECT agent_id, CAST(SUM(amount) AS BIGINT) AS total FROM chain_deposits WHERE block_number <= ? GROUP BY agent_id) c ON c.agent_id = d.agent_id
     ORDER BY d.address_index`,
    block,
  );
  return { owed: totals.owed ?? 0n, x402: totals.x402 ?? 0n, withdrawals: totals.withdrawals ?? 0n, addresses };
}

/** The custody figures from the records and the balances read at the same block (`addresses` in the records' order). */
export function custodyView(records: CustodyRecords, chain: { treasury: bigint; internalSigner: bigint; addresses: bigint[]; read: Omit<BalanceRead, "balances"> }) {
  const depositAddresses = sum(chain.addresses);
  const onChain = chain.treasury + chain.internalSigner + depositAddresses;
  const inFlight = records.x402 + records.withdrawals;
  const difference = onChain - records.owed - inFlight;
  const differences = records.addresses
    .map((row, i) => ({ ...row, onchain: chain.addresses[i]! }))
    .filter((row) => row.onchain !== row.credited)
    // Shortfalls first: a long list must not hide them.
    .sort((a, b) => Number(a.onchain >= a.credited) - Number(b.onchain >= b.credited));
  return {
    ok: differences.every((row) => row.onchain > row.credited),
    onChain: { treasury: usdc(chain.treasury), internalSigner: usdc(chain.internalSigner), depositAddresses: usdc(depositAddresses), total: usdc(onChain) },
    owedToAgents: usdc(records.owed),
    inFlight: { x402: usdc(records.x402), withdrawals: usdc(records.withdrawals), total: usdc(inFlight) },
    difference: usdc(difference),
    shortfall: usdc(difference < 0n ? -difference : 0n),
    deposits: {
      addresses: records.addresses.length,
      credited: usdc(sum(records.addresses.map((row) => row.credited))),
      read: chain.read,
      withDifference: differences.length,
      differences: differences.slice(0, LIMIT).map((row) => ({
        agentId: row.agentId,
        address: row.address,
        onchainBalance: usdc(row.onchain),
        credited: usdc(row.credited),
        difference: usdc(row.onchain - row.credited),
      })),
    },
  };
}
