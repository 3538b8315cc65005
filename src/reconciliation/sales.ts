// Reconciliation of the x402 facilitator's sales (x402_sales) with the chain and the ledger, for
// GET /admin/ledger/check. Like the rest of the check it reads the raw tables.
//
// - A sale settled on chain and credited has its Transfer from the payer to the seller's address in the
//   chain watcher's table (same transaction, seller, payer, amount) and exactly one X402_SALE entry
//   crediting that amount to the seller; no X402_SALE entry credits a sale that is not credited.
// - The treasury pays the gas only: no settlement's transaction moved the treasury's USDC.
// - A settled sale whose Transfer the watcher recorded is credited as the sale (not as a deposit).
// - A sale settled in the ledger (an agentbank buyer through /x402/pay, no transaction) has an
//   authorization of one of the service's signers as its payer (the internal settlement signer; the
//   treasury signed those before it existed), the buyer's payment SETTLED to the seller for that amount,
//   and the seller's credit (X402_SETTLED, history X402_SALE).
import type { ServiceSigners } from "../chain/keys";
import { all, get, type Op } from "../db";

const LIMIT = 100;

type Mismatch = { saleId: string; problem: string };

function* count(sql: string, ...params: unknown[]): Op<number> {
  return Number((yield* get<{ n: bigint | number }>(sql, ...params))!.n);
}

/** The seller's available account got +amount in an entry of `type` with this reference (SQL fragment over s). */
const credited = (type: string, referenceType: string, referenceId: string, historyType = "") => `EXISTS (
  SELECT 1 FROM journal_entries e JOIN postings p ON p.entry_id = e.id JOIN accounts a ON a.id = p.account_id
  WHERE e.type = '${type}' AND e.reference_type = '${referenceType}' AND e.reference_id = ${referenceId}
    AND a.agent_id = s.agent_id AND a.kind = 'available' AND a.currency = 'USDC' AND p.amount = s.amount${historyType ? ` AND p.history_type = '${historyType}'` : ""})`;

/** `signers`: the service's own signing addresses, the only payers of sales settled in the ledger. */
export function* checkSales(signers: ServiceSigners) {
  const problems: [problem: string, sql: string, params?: unknown[]][] = [
    [
      "credited without its transfer from the payer to the seller's address",
      `SELECT s.id AS "saleId" FROM x402_sales s WHERE s.credited_at IS NOT NULL AND s.tx_hash IS NOT NULL AND NOT EXISTS (
         SELECT 1 FROM chain_deposits d WHERE d.tx_hash = s.tx_hash AND d.agent_id = s.agent_id AND d.from_address = s.payer AND d.amount = s.amount)`,
    ],
    [
      "credited without its X402_SALE entry to the seller for the amount",
      `SELECT s.id AS "saleId" FROM x402_sales s WHERE s.credited_at IS NOT NULL AND s.tx_hash IS NOT NULL AND NOT ${credited("X402_SALE", "x402_sale", "s.id")}`,
    ],
    [
      "an X402_SALE entry for a sale that is not credited, or a second one",
      `SELECT e.reference_id AS "saleId" FROM journal_entries e WHERE e.type = 'X402_SALE' AND (
         NOT EXISTS (SELECT 1 FROM x402_sales s WHERE s.id = e.reference_id AND s.credited_at IS NOT NULL AND s.tx_hash IS NOT NULL)
         OR (SELECT COUNT(*) FROM journal_entries o WHERE o.type = 'X402_SALE' AND o.reference_id = e.reference_id) > 1)`,
    ],
    [
      "the settlement moved the treasury's USDC (the treasury pays gas only)",
      `SELECT s.id AS "saleId" FROM x402_sales s JOIN treasury_transfers t ON t.tx_hash = s.tx_hash AND t.direction = 'out'`,
    ],
    [
      "its transfer was credited as a deposit, not as the sale",
      `SELECT s.id AS "saleId" FROM x402_sales s WHERE s.credited_at IS NULL AND s.tx_hash IS NOT NULL
         AND EXISTS (SELECT 1 FROM chain_deposits d WHERE d.tx_hash = s.tx_hash AND d.agent_id = s.agent_id AND d.from_address = s.payer)`,
    ],
    [
      "settled in the ledger without the buyer's payment settled to the seller for the amount",
      `SELECT s.id AS "saleId" FROM x402_sales s WHERE s.status = 'SETTLED' AND s.tx_hash IS NULL AND (s.payer NOT IN (?, ?) OR NOT EXISTS (
         SELECT 1 FROM x402_payments x WHERE x.authorization_nonce = s.nonce AND x.status = 'SETTLED' AND x.internal_agent_id = s.agent_id AND x.amount = s.amount
           AND ${credited("X402_SETTLED", "x402", "x.id", "X402_SALE")}))`,
      [signers.treasury, signers.internalSigner],
    ],
  ];
  const mismatches: Mismatch[] = [];
  for (const [problem, sql, params = []] of problems) {
    const rows = yield* all<{ saleId: string }>(`${sql} LIMIT ${LIMIT}`, ...params);
    mismatches.push(...rows.map(({ saleId }) => ({ saleId, problem })));
  }
  return {
    ok: mismatches.length === 0,
    settledOnChain: yield* count("SELECT COUNT(*) AS n FROM x402_sales WHERE status = 'SETTLED' AND tx_hash IS NOT NULL"),
    settledInLedger: yield* count("SELECT COUNT(*) AS n FROM x402_sales WHERE status = 'SETTLED' AND tx_hash IS NULL"),
    awaitingCredit: yield* count("SELECT COUNT(*) AS n FROM x402_sales WHERE status IN ('SUBMITTED', 'SETTLED') AND tx_hash IS NOT NULL AND credited_at IS NULL"),
    mismatches: mismatches.slice(0, LIMIT),
  };
}
