// Reconciliation of the ledger with the world outside it, for GET /admin/ledger/check. Like the
// ledger check, it reads the raw tables (an audit must not trust the code that wrote them).
//
// In flight: the system accounts that hold money on its way out must equal the records still open
// (exact x402 payments PENDING, withdrawals PENDING or SUBMITTED; an upto payment's maximum is a
// ledger hold instead, which the ledger check matches) — a refund of money never debited, or a
// debit never recorded, shows here.
//
// Chain: at the block the chain watcher has scanned up to (B), the treasury's USDC on chain must be
//   opening balance + what came in − what the ledger says left on chain (withdrawals confirmed on
//   chain, x402 authorizations used, batch-settlement channel deposits), all within (opening block, B],
// every transfer out of the treasury must be one of those (same transaction, recipient and amount),
// and each of those must have its transfer. None may go to one of the service's own addresses (an
// agent's deposit address, the internal settlement signer) unless the operator acknowledged it. And
// custody (custody.ts): the treasury plus every deposit address against what the ledger owes.
import { usdcBalancesAt, type BalanceRead } from "../chain/balances";
import { chainSettings, networkName, verifyChain } from "../chain/client";
import { serviceSigners, type ServiceSigners } from "../chain/keys";
import { treasuryTransfers } from "../chain/schema";
import { treasuryOpening, watchCursor } from "../chain/watcher";
import { config } from "../config";
import { all, get, read, select, type Op } from "../db";
import { toMajor } from "../money";
import { ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "../x402/batch/wire";
import { custodyRecords, custodyView } from "./custody";
import { type AgentId } from "../ids";

const usdc = (minor: bigint) => toMajor(minor, "USDC");


/** A SUM as bigint (0 when there is nothing to sum): `sql` selects CAST(SUM(...) AS BIGINT) AS n. */
function* sumOf(sql: string, ...params: unknown[]): Op<bigint> {
  return (yield* get<{ n: bigint | null }>(sql, ...params))?.n ?? 0n;
}

export function* checkInFlight() {
  const system = (kind: string) => sumOf("SELECT CAST(SUM(balance) AS BIGINT) AS n FROM accounts WHERE agent_id IS NULL AND kind = ? AND currency = 'USDC'", kind);
  const x402 = { ledger: yield* system("x402_in_flight"), records: yield* sumOf("SELECT CAST(SUM(amount) AS BIGINT) AS n FROM x402_payments WHERE status = 'PENDING' AND scheme = 'exact'") };
  const withdrawals = {
    ledger: yield* system("withdrawals_in_flight"),
    records: yield* sumOf("SELECT CAST(SUM(amount) AS BIGINT) AS n FROM withdrawals WHERE status IN ('PENDING', 'SUBMITTED')"),
  };
  const view = (pair: { ledger: bigint; records: bigint }) => ({ ledger: usdc(pair.ledger), openRecords: usdc(pair.records) });
  return {
    ok: x402.ledger === x402.records && withdrawals.ledger === withdrawals.records,
    x402: view(x402),
    withdrawals: view(withdrawals),
  };
}

type Movement = { kind: "withdrawal" | "x402" | "x402_channel"; id: string; txHash: string | null; to: string; amount: bigint };
type CustodialTransfer = { txHash: string; logIndex: bigint; to: string; agentId: AgentId | null; amount: bigint; acknowledged: string | null };

/** What the database says moved on chain within (from, to]: inflows, treasury outflows, the ledger's chain movements. */
function* chainRecords(from: bigint, to: bigint, cursorTime: bigint, signers: ServiceSigners) {
  const inflow = yield* sumOf("SELECT CAST(SUM(amount) AS BIGINT) AS n FROM treasury_transfers WHERE direction = 'in' AND block_number > ? AND block_number <= ?", from, to);
  const outs = yield* select(treasuryTransfers, "direction = 'out' AND block_number > ? AND block_number <= ?", from, to);
  // The treasury's USDC sent to one of the service's own addresses: never allowed (an agent's deposit
  // address, or the internal settlement signer, which would then hold USDC its authorizations could move).
  const custodial = yield* all<CustodialTransfer>(
    `SELECT t.tx_hash AS "txHash", t.log_index AS "logIndex", t.counterparty AS "to", d.agent_id AS "agentId", t.amount, t.acknowledged
     FROM treasury_transfers t LEFT JOIN deposit_addresses d ON d.address = t.counterparty
     WHERE t.direction = 'out' AND t.block_number > ? AND t.block_number <= ? AND (d.agent_id IS NOT NULL OR t.counterparty = ?)
     ORDER BY t.block_number, t.log_index`,
    from,
    to,
    signers.internalSigner,
  );
  // What the ledger says left the treasury on chain up to B.
  const movements = [
    ...(yield* all<Movement>(
      `SELECT 'withdrawal' AS kind, id, tx_hash AS txHash, to_address AS "to", amount FROM withdrawals
       WHERE internal_agent_id IS NULL AND ((status = 'CONFIRMED' AND receipt_block > ? AND receipt_block <= ?)
         OR (status = 'SUBMITTED' AND tx_hash IN (SELECT tx_hash FROM treasury_transfers WHERE direction = 'out' AND block_number <= ?)))`,
      from,
      to,
      to,
    )),
    ...(yield* all<Movement>(
      `SELECT 'x402' AS kind, p.id, a.tx_hash AS txHash, p.pay_to AS "to", p.amount FROM x402_payments p
       JOIN treasury_authorizations a ON a.nonce = p.authorization_nonce
       WHERE p.status != 'REFUNDED' AND a.block_number > ? AND a.block_number <= ?`,
      from,
      to,
    )),
    // upto: what the chain showed the permit moved, in the transaction it was read from.
    ...(yield* all<Movement>(
      `SELECT 'x402' AS kind, id, "transaction" AS txHash, pay_to AS "to", settled_amount AS amount FROM x402_payments
       WHERE scheme = 'upto' AND status = 'SETTLED' AND "transaction" IN (SELECT tx_hash FROM treasury_transfers WHERE direction = 'out' AND block_number > ? AND block_number <= ?)`,
      from,
      to,
    )),
    // A batch-settlement channel's deposit: the treasury's ReceiveWithAuthorization to the deposit
    // collector, used once (what comes back from the escrow when it closes is an inflow).
    ...(yield* all<Movement>(
      `SELECT 'x402_channel' AS kind, c.id, a.tx_hash AS txHash, ? AS "to", c.deposit AS amount FROM x402_channels c
       JOIN treasury_authorizations a ON a.nonce = c.deposit_nonce
       WHERE a.block_number > ? AND a.block_number <= ?`,
      ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
      from,
      to,
    )),
  ];
  // SETTLED, but the chain never used the authorization and no longer can (unless agentbank's facilitator
  // settled it in the ledger: a sale between two agents, no transaction, paid by one of the service's signers).
  const neverUsed = yield* all<Movement>(
    `SELECT 'x402' AS kind, id, "transaction" AS txHash, pay_to AS "to", amount FROM x402_payments
     WHERE status = 'SETTLED' AND scheme = 'exact' AND valid_before <= ? AND authorization_nonce NOT IN (SELECT nonce FROM treasury_authorizations)
       AND authorization_nonce NOT IN (SELECT nonce FROM x402_sales WHERE payer IN (?, ?) AND status = 'SETTLED' AND tx_hash IS NULL)`,
    cursorTime,
    signers.treasury,
    signers.internalSigner,
  );
  return { inflow, outs, custodial, movements, neverUsed };
}

/** Everything the chain check compares at the watcher's block B, read in one snapshot with the cursor itself. */
function* recordsAtCursor(signers: ServiceSigners) {
  const cursor = yield* watchCursor();
  const opening = yield* treasuryOpening();
  if (!cursor || !opening) return null;
  const time = cursor.timestamp ?? 0n;
  return { cursor, opening, ...(yield* chainRecords(opening.block, cursor.block, time, signers)), custody: yield* custodyRecords(cursor.block, time) };
}

export async function reconcileChain() {
  if (!config.chain.configured) return { status: "not_configured" as const };
  const signers = serviceSigners();
  const records = await read(recordsAtCursor(signers), true);
  if (!records) return { status: "not_started" as const };
  const { cursor, opening, inflow, outs, custodial, movements, neverUsed } = records;
  const B = cursor.block;
  let balances: BalanceRead;
  try {
    await verifyChain();
    balances = await usdcBalancesAt([signers.treasury, signers.internalSigner, ...records.custody.addresses.map((row) => row.address)], B);
  } catch (error) {
    return { status: "unreachable" as const, error: String((error as Error).message ?? error).split("\n")[0] };
  }
  const [onchain = 0n, internalSigner = 0n, ...addresses] = balances.balances;
  const from = opening.block;
  // Each movement the ledger made is matched to its transfer; what is left is the operator's if acknowledged.
  const unmatched = [...outs];
  const missing: Movement[] = [...neverUsed];
  for (const movement of movements) {
    const index = unmatched.findIndex((out) => out.txHash === movement.txHash && out.counterparty.toLowerCase() === movement.to.toLowerCase() && out.amount === movement.amount);
    if (index >= 0) unmatched.splice(index, 1);
    else missing.push(movement);
  }
  // Movements the operator made by hand and explained: out of the ledger's reach, counted as they are.
  const operatorOuts = unmatched.filter((out) => out.acknowledged !== null);
  const unexplained = unmatched.filter((out) => out.acknowledged === null);
  const left = [...movements, ...operatorOuts].reduce((sum, movement) => sum + movement.amount, 0n);
  const expected = opening.balance + inflow - left;
  const custody = custodyView(records.custody, { treasury: onchain, internalSigner, addresses, read: { via: balances.via, requests: balances.requests } });
  const ok = expected === onchain && unexplained.length === 0 && missing.length === 0 && custodial.every((out) => out.acknowledged !== null) && custody.ok;
  return {
    status: ok ? ("ok" as const) : ("mismatch" as const),
    block: Number(B),
    treasury: signers.treasury,
    onchainBalance: usdc(onchain),
    expectedBalance: usdc(expected),
    difference: usdc(onchain - expected),
    opening: { block: Number(from), balance: usdc(opening.balance) },
    fundedSinceOpening: usdc(inflow),
    withdrawnOnChain: usdc(movements.filter((m) => m.kind === "withdrawal").reduce((sum, m) => sum + m.amount, 0n)),
    x402Settled: usdc(movements.filter((m) => m.kind === "x402").reduce((sum, m) => sum + m.amount, 0n)),
    movedByOperator: usdc(operatorOuts.reduce((sum, out) => sum + out.amount, 0n)),
    unexplainedTransfers: unexplained.map((out) => ({ txHash: out.txHash, logIndex: Number(out.logIndex), to: out.counterparty, amount: usdc(out.amount) })),
    missingTransfers: missing.map((m) => ({ kind: m.kind, id: m.id, txHash: m.txHash, to: m.to, amount: usdc(m.amount) })),
    custodialTransfers: custodial.map((out) => ({ txHash: out.txHash, logIndex: Number(out.logIndex), to: out.to, agentId: out.agentId, amount: usdc(out.amount), acknowledged: out.acknowledged })),
    custody,
    network: networkName(chainSettings().chainId),
    chainId: chainSettings().chainId,
  };
}
