// The chain watcher: reads the USDC contract's logs of confirmed blocks only (block ≤ tip −
// CONFIRMATIONS + 1), so a reorg of the unconfirmed tail never reaches the ledger, and records in one
// write with its cursor:
// - Transfer to an agent's deposit address (not from the treasury or the internal settlement signer):
//   credited once per (txHash, logIndex) — as an x402 sale when the same transaction used an
//   authorization the agentbank facilitator settled for that agent (src/chain/sales.ts), as a deposit
//   otherwise;
// - Transfer from or to the treasury: a treasury movement, what the chain reconciliation compares the
//   ledger with;
// - AuthorizationUsed by the treasury: an EIP-3009 authorization (an x402 payment) that was settled.
// The cursor's block timestamp is kept too: an authorization whose validBefore is not after it, and
// that was not seen used up to it, can never be used.
import { getAddress, parseAbiItem } from "viem";
import { clock } from "../clock";
import { read, run, select, write, type Op, type Row } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { notFound } from "../errors";
import { uuid } from "../ids";
import { deposit } from "../ledger/transfers";
import { toMajor } from "../money";
import { notifyFinancial } from "../webhooks/outbox";
import { creditSale, type UsedAuthorization } from "./sales";
import { agentIdAtAddress } from "./addresses";
import { chainSettings, publicClient, usdcBalanceOf, verifyChain } from "./client";
import { internalSignerAccount, treasuryAccount } from "./keys";
import { treasuryAuthorizations } from "./schema";

const CURSOR_KEY = "deposit_cursor_block";
const CURSOR_TIME_KEY = "chain_cursor_timestamp";
const OPENING_KEY = "treasury_opening";
const MAX_BLOCKS_PER_SCAN = 2000n;
// Shrinks when the RPC refuses a range (providers cap the logs or blocks per query), grows back after.
let span = MAX_BLOCKS_PER_SCAN;
const events = [
  parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
  parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)"),
] as const;

/** The last block scanned, and its timestamp (seconds), or null before the first start with a chain. */
export function* watchCursor(lock = false): Op<{ block: bigint; timestamp: bigint | null } | null> {
  const block = yield* getSetting(CURSOR_KEY, lock);
  if (block === null) return null;
  const timestamp = yield* getSetting(CURSOR_TIME_KEY);
  return { block: BigInt(block), timestamp: timestamp === null ? null : BigInt(timestamp) };
}

/** The treasury's USDC balance at the block the reconciliation starts from. */
export function* treasuryOpening(): Op<{ block: bigint; balance: bigint } | null> {
  const value = yield* getSetting(OPENING_KEY);
  if (value === null) return null;
  const [block, balance] = value.split(":");
  return { block: BigInt(block!), balance: BigInt(balance!) };
}

/** A write op: moves the cursor forward only (overlapping scans may commit out of order). */
function* advanceCursor(block: bigint, timestamp: bigint): Op<void> {
  const current = yield* watchCursor(true);
  if (current !== null && current.block >= block) return;
  yield* setSetting(CURSOR_KEY, String(block));
  yield* setSetting(CURSOR_TIME_KEY, String(timestamp));
}

/**
 * At the first start with a chain: scanning starts at the current block, and the treasury's balance
 * there is the opening balance of the reconciliation (also set on a database that predates it).
 */
export async function initWatchCursor(): Promise<void> {
  const client = publicClient();
  const cursor = await read(watchCursor());
  const block = cursor?.block ?? (await client.getBlockNumber());
  if (cursor !== null && cursor.timestamp !== null && (await read(treasuryOpening())) !== null) return;
  const [{ timestamp }, balance] = await Promise.all([client.getBlock({ blockNumber: block }), usdcBalanceOf(treasuryAccount().address, block)]);
  await write(function* () {
    const current = yield* watchCursor(true);
    if (current === null) yield* advanceCursor(block, timestamp);
    else if (current.timestamp === null) yield* setSetting(CURSOR_TIME_KEY, String(timestamp));
    if ((yield* treasuryOpening()) === null) yield* setSetting(OPENING_KEY, `${block}:${balance}`);
  });
}

type TransferLog = { transactionHash: `0x${string}`; logIndex: number; blockNumber: bigint; args: { from?: string; to?: string; value?: bigint } };
type AuthorizationLog = { transactionHash: `0x${string}`; blockNumber: bigint; args: { authorizer?: string; nonce?: string } };

/**
 * A write op: one Transfer log. Its rows are written with ON CONFLICT DO NOTHING rather than insert():
 * scans may cover a block again, and a log already recorded must be passed over, not fail the write.
 */
function* recordTransfer(log: TransferLog, treasury: string, internalSigner: string, used: UsedAuthorization[]): Op<void> {
  const from = getAddress(log.args.from!);
  const to = getAddress(log.args.to!);
  const value = log.args.value!;
  if (from === treasury || to === treasury) {
    yield* run(
      `INSERT INTO treasury_transfers (tx_hash, log_index, block_number, direction, counterparty, amount)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING`,
      log.transactionHash,
      log.logIndex,
      log.blockNumber,
      from === treasury ? "out" : "in",
      from === treasury ? to : from,
      value,
    );
  }
  // USDC the service's own keys send to an agent's address moves between its own addresses: not a
  // deposit. The treasury never should (the chain check reports it). The internal signer holds USDC
  // only if someone sent it some, and its authorizations are settled in the ledger by the facilitator:
  // crediting the transfer as well would pay the payee twice. What it moved stays on the address, where
  // the custody check shows it.
  const agentId = yield* agentIdAtAddress(to);
  if (!agentId || value === 0n || from === treasury || from === internalSigner) return;
  const id = uuid();
  const inserted = yield* run(
    `INSERT INTO chain_deposits (id, agent_id, tx_hash, log_index, block_number, from_address, amount, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING`,
    id,
    agentId,
    log.transactionHash,
    log.logIndex,
    log.blockNumber,
    from,
    value,
    clock.nowMs(),
  );
  if (inserted === 0) return;
  if (yield* creditSale(agentId, { from, to, value, txHash: log.transactionHash }, used)) return;
  yield* deposit(agentId, value, "USDC", { type: "chain_deposit", id });
  const amount = toMajor(value, "USDC");
  yield* notifyFinancial(agentId, "deposit.credited", { depositId: id, amount, currency: "USDC", txHash: log.transactionHash, logIndex: log.logIndex, from }, `Deposit credited: ${amount} USDC`);
}

/** A write op: an EIP-3009 authorization of the treasury was used. */
function* recordAuthorization(log: AuthorizationLog): Op<void> {
  yield* run(
    "INSERT INTO treasury_authorizations (nonce, tx_hash, block_number) VALUES (?, ?, ?) ON CONFLICT (nonce) DO NOTHING",
    log.args.nonce!.toLowerCase(),
    log.transactionHash,
    log.blockNumber,
  );
}

/** The block and transaction in which the treasury's authorization `nonce` was used, as the watcher saw it. */
export function* authorizationUse(nonce: string): Op<Row<typeof treasuryAuthorizations> | null> {
  return (yield* select(treasuryAuthorizations, "nonce = ?", nonce.toLowerCase()))[0] ?? null;
}

export async function watchChain(): Promise<void> {
  await verifyChain();
  await initWatchCursor();
  const settings = chainSettings();
  const client = publicClient();
  let cursor = (await read(watchCursor()))!.block;
  const tip = (await client.getBlockNumber()) - BigInt(settings.confirmations - 1);
  const treasury = treasuryAccount().address;
  const internalSigner = internalSignerAccount().address;
  while (cursor < tip) {
    const toBlock: bigint = cursor + span < tip ? cursor + span : tip;
    let logs;
    try {
      logs = await client.getLogs({ address: settings.usdcAddress, events, fromBlock: cursor + 1n, toBlock });
    } catch (error) {
      if (span > 1n) span /= 2n;
      throw error;
    }
    if (span < MAX_BLOCKS_PER_SCAN) span *= 2n;
    const { timestamp } = await client.getBlock({ blockNumber: toBlock });
    // The EIP-3009 authorizations each transaction used (an x402 sale's Transfer comes with one).
    const usedIn = new Map<string, UsedAuthorization[]>();
    for (const log of logs) {
      if (log.eventName !== "AuthorizationUsed") continue;
      const { authorizer, nonce } = (log as AuthorizationLog).args;
      usedIn.set(log.transactionHash, [...(usedIn.get(log.transactionHash) ?? []), { authorizer: getAddress(authorizer!), nonce: nonce! }]);
    }
    await write(function* () {
      for (const log of logs) {
        if (log.eventName === "Transfer") yield* recordTransfer(log as TransferLog, treasury, internalSigner, usedIn.get(log.transactionHash) ?? []);
        else if (getAddress((log as AuthorizationLog).args.authorizer!) === treasury) yield* recordAuthorization(log as AuthorizationLog);
      }
      yield* advanceCursor(toBlock, timestamp);
    });
    cursor = toBlock;
  }
}

/** A write op: the operator explains a treasury movement the service did not make. */
export function* acknowledgeTransfer(txHash: string, logIndex: number, reason: string) {
  const hash = txHash.toLowerCase();
  const found = (yield* run("UPDATE treasury_transfers SET acknowledged = ? WHERE tx_hash = ? AND log_index = ?", reason, hash, logIndex)) > 0;
  if (!found) throw notFound("treasury transfer (the chain watcher records it once it has its confirmations)");
  return { txHash: hash, logIndex, acknowledged: reason };
}
