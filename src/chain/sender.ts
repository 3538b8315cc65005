// The treasury's transactions and the withdrawals they carry. The sender signs a PENDING withdrawal's
// ERC-20 transfer with the next treasury nonce and STORES the signed transaction (SUBMITTED) before
// broadcasting it, so a restart re-sends that same transaction and never signs a second one. Only a
// receipt (CONFIRMED, or FAILED if reverted) or a nonce provably taken by another transaction
// (FAILED) ends a withdrawal; an RPC error or timeout leaves it as it is, to be checked again.
import { encodeFunctionData, erc20Abi, keccak256, type Hex } from "viem";
import { clock } from "../clock";
import { config } from "../config";
import { exclusive, find, read, select, update, write, type Op, type Row } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { logLine } from "../log";
import { toMajor } from "../money";
import { notifyFinancial } from "../webhooks/outbox";
import { chainSettings, publicClient, verifyChain } from "./client";
import { treasuryAccount } from "./keys";
import { returnWithdrawal, settleWithdrawal } from "./ledger";
import { withdrawals } from "./schema";

const NONCE_KEY = "treasury_next_nonce";
const TRANSFER_GAS = 100_000n;

function* storedNonce(): Op<bigint | null> {
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
  sending ??= exclusive(TREASURY_SENDER, 0, sendPending)
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
    const [row] = await read(select(withdrawals, "status = 'PENDING' ORDER BY created_at, id LIMIT 1"));
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
      const current = yield* find(withdrawals, row.id, true);
      if (!current || current.status !== "PENDING") return false;
      yield* update(withdrawals, row.id, { status: "SUBMITTED", nonce, txHash: hash, rawTx: raw, updatedAt: clock.nowMs() });
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
export async function receiptOf(hash: Hex) {
  try {
    return await publicClient().getTransactionReceipt({ hash });
  } catch (error) {
    if ((error as Error).name === "TransactionReceiptNotFoundError") return null;
    throw error;
  }
}

async function finish(row: Row<typeof withdrawals>, outcome: "CONFIRMED" | "FAILED", error: string | null, receiptBlock: bigint | null = null): Promise<void> {
  await write(function* () {
    const current = yield* find(withdrawals, row.id, true);
    if (!current || current.status !== "SUBMITTED") return;
    if (outcome === "CONFIRMED") yield* settleWithdrawal(row.agentId, row.amount, row.id);
    else yield* returnWithdrawal(row.agentId, row.amount, row.id);
    yield* update(withdrawals, row.id, { status: outcome, error, receiptBlock, updatedAt: clock.nowMs() });
    const amount = toMajor(row.amount, "USDC");
    yield* notifyFinancial(
      row.agentId,
      outcome === "CONFIRMED" ? "withdrawal.confirmed" : "withdrawal.failed",
      { withdrawalId: row.id, amount, currency: "USDC", toAddress: row.toAddress, txHash: row.txHash, error },
      outcome === "CONFIRMED" ? `Withdrawal of ${amount} USDC confirmed` : `Withdrawal of ${amount} USDC failed; the funds are back in your balance`,
    );
  });
}

/** A treasury transaction recorded before it was broadcast: its hash, the signed transaction and its treasury nonce. */
export type RecordedTransaction = { hash: Hex; raw: Hex; nonce: bigint };

/**
 * Where a recorded treasury transaction stands, found by its hash: its receipt once mined; "replaced"
 * once the treasury's nonce count at the newest block with CONFIRMATIONS confirmations passed its
 * nonce without it (it can no longer be mined, short of a deeper reorg); else "pending", after
 * broadcasting the same signed transaction again (a node that lost it, a restart before the broadcast).
 */
export async function followTransaction(recorded: RecordedTransaction, latest: bigint) {
  const receipt = await receiptOf(recorded.hash);
  if (receipt) return receipt;
  const confirmedBlock = latest - BigInt(chainSettings().confirmations) + 1n;
  const used = confirmedBlock < 0n ? 0n : BigInt(await publicClient().getTransactionCount({ address: treasuryAccount().address, blockNumber: confirmedBlock }));
  if (used > recorded.nonce) {
    // Ours may have been mined since the receipt was asked for.
    return (await receiptOf(recorded.hash)) ?? "replaced";
  }
  await broadcast(recorded.raw);
  return "pending";
}

/** The job: re-sends what was never sent, and settles SUBMITTED withdrawals from their receipts. */
export async function processWithdrawals(): Promise<void> {
  if (!config.chain.configured) return;
  wakeSender();
  await sending;
  await verifyChain();
  const settings = chainSettings();
  const submitted = await read(select(withdrawals, "status = 'SUBMITTED' ORDER BY nonce"));
  if (submitted.length === 0) return;
  const latest = await publicClient().getBlockNumber();
  for (const row of submitted) {
    const fate = await followTransaction({ hash: row.txHash as Hex, raw: row.rawTx as Hex, nonce: row.nonce! }, latest);
    if (fate === "replaced") await finish(row, "FAILED", "the transaction was replaced and never mined");
    else if (fate !== "pending" && latest - fate.blockNumber + 1n >= BigInt(settings.confirmations)) {
      if (fate.status === "success") await finish(row, "CONFIRMED", null, fate.blockNumber);
      else await finish(row, "FAILED", "the transfer reverted on chain");
    }
  }
}
