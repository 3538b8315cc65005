// USDC withdrawals. The debit and the PENDING record commit together; the sender then signs the
// ERC-20 transfer with the next treasury nonce and STORES the signed transaction (SUBMITTED) before
// broadcasting it, so a restart re-sends that same transaction and never signs a second one. Only a
// receipt (CONFIRMED, or FAILED if reverted) or a nonce provably taken by another transaction
// (FAILED) ends a withdrawal; an RPC error or timeout leaves it as it is, to be checked again.
import { encodeFunctionData, erc20Abi, getAddress, isAddress, keccak256, zeroAddress, type Hex } from "viem";
import { clock, iso } from "../clock";
import { config } from "../config";
import { afterCommit, all, exclusive, FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { invalid, notFound } from "../errors";
import { uuid } from "../ids";
import { logLine } from "../http/log";
import { toMajor, toMinor } from "../money";
import { authorizeOutflow, NO_SANCTION, type Sanction } from "../outflows/check";
import { notifyFinancial } from "../webhooks/outbox";
import { assertNotBlockedBy } from "../agents/blocks";
import { transfer } from "../ledger/transfers";
import { agentIdAtAddress } from "./addresses";
import { chainSettings, publicClient, verifyChain } from "./client";
import { treasuryAccount } from "./keys";
import { debitWithdrawal, returnWithdrawal, settleWithdrawal } from "./ledger";

const NONCE_KEY = "treasury_next_nonce";
const TRANSFER_GAS = 100_000n;

type WithdrawalRow = {
  id: string;
  agentId: string;
  toAddress: string;
  amount: bigint;
  currency: string;
  status: string;
  nonce: bigint | null;
  txHash: string | null;
  rawTx: string | null;
  receiptBlock: bigint | null;
  internalAgentId: string | null;
  error: string | null;
  createdAt: bigint;
  updatedAt: bigint;
};

const COLUMNS = `id, agent_id AS agentId, to_address AS toAddress, amount, currency, status, nonce, tx_hash AS txHash,
  raw_tx AS rawTx, receipt_block AS receiptBlock, internal_agent_id AS internalAgentId, error, created_at AS createdAt, updated_at AS updatedAt`;

export function withdrawalView(row: WithdrawalRow) {
  return {
    id: row.id,
    agentId: row.agentId,
    toAddress: row.toAddress,
    amount: toMajor(row.amount, "USDC"),
    currency: row.currency,
    status: row.status,
    txHash: row.txHash,
    internalAgentId: row.internalAgentId,
    error: row.error,
    createdAt: iso(Number(row.createdAt)),
    updatedAt: iso(Number(row.updatedAt)),
  };
}

const find = (id: string) => get<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE id = ?`, id);
/** In a write op that moves the withdrawal on: the row, locked until the op commits. */
const lock = (id: string) => get<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE id = ? ${FOR_UPDATE}`, id);

export function parseDestination(toAddress: string): `0x${string}` {
  // Mixed case must carry a valid EIP-55 checksum; all-lower or all-upper hex is accepted as is.
  if (!isAddress(toAddress, { strict: true })) throw invalid("toAddress is not a valid address (a mixed-case address must have a valid checksum)");
  const address = getAddress(toAddress);
  if (address === zeroAddress) throw invalid("toAddress must not be the zero address");
  return address;
}

/**
 * A write op: debits the agent and records the withdrawal PENDING. To another agent's deposit
 * address it settles at once inside the ledger, with no chain transaction: the watcher does not
 * credit what the treasury sends to agent addresses, so an on-chain transfer there would vanish.
 */
export function* requestWithdrawal(agentId: string, body: { toAddress: string; amount: number; currency?: string }, sanction: Sanction = NO_SANCTION) {
  chainSettings();
  if ((body.currency ?? "USDC") !== "USDC") throw invalid("withdrawals are in USDC only");
  const toAddress = parseDestination(body.toAddress);
  const amount = toMinor(body.amount, "USDC");
  if (toAddress === treasuryAccount().address) throw invalid("toAddress is the service's own treasury");
  const internalAgentId = yield* agentIdAtAddress(toAddress);
  if (internalAgentId === agentId) throw invalid("toAddress is your own deposit address");
  if (internalAgentId) yield* assertNotBlockedBy(internalAgentId, agentId);
  yield* authorizeOutflow({ agentId, kind: "WITHDRAWAL", amount, currency: "USDC", counterpartyId: internalAgentId, terms: body }, sanction);
  const id = uuid();
  const now = clock.nowMs();
  if (internalAgentId) return yield* settleInternally({ id, agentId, internalAgentId, toAddress, amount, now });
  yield* debitWithdrawal(agentId, amount, id);
  yield* run(`INSERT INTO withdrawals (id, agent_id, to_address, amount, currency, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'USDC', 'PENDING', ?, ?)`, id, agentId, toAddress, amount, now, now);
  yield* afterCommit(wakeSender);
  return withdrawalView((yield* find(id))!);
}

function* settleInternally(args: { id: string; agentId: string; internalAgentId: string; toAddress: string; amount: bigint; now: number }) {
  const { id, agentId, internalAgentId, toAddress, amount, now } = args;
  yield* transfer({ from: agentId, to: internalAgentId, amount, currency: "USDC", reference: { type: "withdrawal", id }, entryType: "WITHDRAWAL_INTERNAL", sentAs: "WITHDRAWAL", receivedAs: "DEPOSIT" });
  yield* run(
    `INSERT INTO withdrawals (id, agent_id, to_address, amount, currency, status, internal_agent_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'USDC', 'CONFIRMED', ?, ?, ?)`,
    id,
    agentId,
    toAddress,
    amount,
    internalAgentId,
    now,
    now,
  );
  const major = toMajor(amount, "USDC");
  yield* notifyFinancial(agentId, "withdrawal.confirmed", { withdrawalId: id, amount: major, currency: "USDC", toAddress, txHash: null, internalAgentId, error: null }, `Withdrawal of ${major} USDC confirmed (to another agent's deposit address, settled internally)`);
  yield* notifyFinancial(internalAgentId, "deposit.credited", { withdrawalId: id, amount: major, currency: "USDC", fromAgentId: agentId, internal: true }, `Deposit credited: ${major} USDC`);
  return withdrawalView((yield* find(id))!);
}

export function* getWithdrawal(agentId: string, id: string) {
  const row = yield* find(id);
  if (!row || row.agentId !== agentId) throw notFound("withdrawal");
  return withdrawalView(row);
}

export function listWithdrawals(agentId: string, window: PageWindow) {
  return newestFirst({ table: "withdrawals", columns: COLUMNS, scope: { where: "agent_id = ?", params: [agentId] } }, window, withdrawalView);
}

export function* withdrawalsInFlight() {
  const rows = yield* all<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE status IN ('PENDING', 'SUBMITTED') ORDER BY created_at`);
  return rows.map(withdrawalView);
}

function* storedNonce(): Query<bigint | null> {
  const value = yield* getSetting(NONCE_KEY);
  return value === null ? null : BigInt(value);
}

let sending: Promise<void> | null = null;

/** The lock under which treasury transactions are signed (withdrawals, x402 settlements): nonces are sequential. */
export const TREASURY_SENDER = "withdrawals.sender";

/** Under TREASURY_SENDER: the chain's pending count, or the stored next nonce when ahead (signed, not yet seen by the node). */
export async function nextTreasuryNonce(): Promise<bigint> {
  const onChain = BigInt(await publicClient().getTransactionCount({ address: treasuryAccount().address, blockTag: "pending" }));
  const stored = await read(storedNonce());
  return stored !== null && stored > onChain ? stored : onChain;
}

/** A write op, in the one that records the transaction signed with `nonce`. */
export const takeTreasuryNonce = (nonce: bigint) => setSetting(NONCE_KEY, String(nonce + 1n));

/**
 * Signs and broadcasts PENDING withdrawals one at a time (nonces are sequential), under a lock shared
 * by every instance: one sender for the treasury, whichever instance woke it.
 */
export function wakeSender(): void {
  if (!config.chain.configured) return;
  sending ??= exclusive(TREASURY_SENDER, false, sendPending)
    .then(() => {})
    .catch((error) => logLine({ level: "warn", msg: "withdrawal sender stopped", error: String((error as Error).message ?? error).split("\n")[0] }))
    .finally(() => (sending = null));
}

async function sendPending(): Promise<void> {
  await verifyChain();
  const settings = chainSettings();
  const client = publicClient();
  const treasury = treasuryAccount();
  for (;;) {
    const row = await read(get<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE status = 'PENDING' ORDER BY created_at, id LIMIT 1`));
    if (!row) return;
    const nonce = await nextTreasuryNonce();
    const fees = await client.estimateFeesPerGas();
    const raw = await treasury.signTransaction({
      chainId: settings.chainId,
      type: "eip1559",
      to: settings.usdcAddress,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [row.toAddress as `0x${string}`, row.amount] }),
      nonce: Number(nonce),
      gas: TRANSFER_GAS,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = keccak256(raw);
    const recorded = await write(function* () {
      const current = yield* lock(row.id);
      if (!current || current.status !== "PENDING") return false;
      yield* run("UPDATE withdrawals SET status = 'SUBMITTED', nonce = ?, tx_hash = ?, raw_tx = ?, updated_at = ? WHERE id = ?", nonce, hash, raw, clock.nowMs(), row.id);
      yield* takeTreasuryNonce(nonce);
      return true;
    });
    if (recorded) await broadcast(raw);
  }
}

export async function broadcast(raw: Hex): Promise<void> {
  try {
    await publicClient().sendRawTransaction({ serializedTransaction: raw });
  } catch (error) {
    // "already known" / "nonce too low" after a restart, or a timeout: the confirmer decides.
    logLine({ level: "info", msg: "broadcast not accepted", error: String((error as Error).message ?? error).split("\n")[0] });
  }
}

/** The receipt, or null when the node has none; any other RPC failure throws (outcome unknown). */
async function receiptOf(hash: Hex) {
  try {
    return await publicClient().getTransactionReceipt({ hash });
  } catch (error) {
    if ((error as Error).name === "TransactionReceiptNotFoundError") return null;
    throw error;
  }
}

async function finish(row: WithdrawalRow, outcome: "CONFIRMED" | "FAILED", error: string | null, receiptBlock: bigint | null = null): Promise<void> {
  await write(function* () {
    const current = yield* lock(row.id);
    if (!current || current.status !== "SUBMITTED") return;
    if (outcome === "CONFIRMED") yield* settleWithdrawal(row.agentId, row.amount, row.id);
    else yield* returnWithdrawal(row.agentId, row.amount, row.id);
    yield* run("UPDATE withdrawals SET status = ?, error = ?, receipt_block = ?, updated_at = ? WHERE id = ?", outcome, error, receiptBlock, clock.nowMs(), row.id);
    const amount = toMajor(row.amount, "USDC");
    yield* notifyFinancial(
      row.agentId,
      outcome === "CONFIRMED" ? "withdrawal.confirmed" : "withdrawal.failed",
      { withdrawalId: row.id, amount, currency: "USDC", toAddress: row.toAddress, txHash: row.txHash, error },
      outcome === "CONFIRMED" ? `Withdrawal of ${amount} USDC confirmed` : `Withdrawal of ${amount} USDC failed; the funds are back in your balance`,
    );
  });
}

/** The job: re-sends what was never sent, and settles SUBMITTED withdrawals from their receipts. */
export async function processWithdrawals(): Promise<void> {
  if (!config.chain.configured) return;
  wakeSender();
  await sending;
  await verifyChain();
  const settings = chainSettings();
  const client = publicClient();
  const submitted = await read(all<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE status = 'SUBMITTED' ORDER BY nonce`));
  if (submitted.length === 0) return;
  const latest = await client.getBlockNumber();
  for (const row of submitted) {
    const hash = row.txHash as Hex;
    const receipt = await receiptOf(hash);
    if (receipt) {
      if (latest - receipt.blockNumber + 1n < BigInt(settings.confirmations)) continue;
      if (receipt.status === "success") await finish(row, "CONFIRMED", null, receipt.blockNumber);
      else await finish(row, "FAILED", "the transfer reverted on chain");
      continue;
    }
    // The treasury's nonce count as of the newest block with CONFIRMATIONS confirmations: a nonce spent
    // there by another transaction proves ours can no longer be mined (short of a deeper reorg).
    const confirmedBlock = latest - BigInt(settings.confirmations) + 1n;
    const used = confirmedBlock < 0n ? 0n : BigInt(await client.getTransactionCount({ address: treasuryAccount().address, blockNumber: confirmedBlock }));
    if (used > row.nonce!) {
      // Ours may have been mined since the receipt was asked for.
      const again = await receiptOf(hash);
      if (!again) await finish(row, "FAILED", "the transaction was replaced and never mined");
      continue;
    }
    await broadcast(row.rawTx as Hex);
  }
}
