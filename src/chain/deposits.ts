// The deposit watcher: USDC Transfer logs to agent addresses, credited once per (txHash, logIndex)
// when their block has CONFIRMATIONS confirmations. The cursor (last scanned block) is stored with the
// credits in one write, and only confirmed blocks are scanned, so a reorg of the unconfirmed tail
// never credits anything and a restart resumes where it stopped.
import { getAddress, parseAbiItem } from "viem";
import { clock } from "../clock";
import { sqlite, write } from "../db";
import { uuid } from "../ids";
import { deposit } from "../ledger/transfers";
import { toMajor } from "../money";
import { notifyFinancial } from "../webhooks/outbox";
import { agentIdAtAddress } from "./addresses";
import { chainSettings, publicClient, verifyChain } from "./client";
import { treasuryAccount } from "./keys";

const CURSOR_KEY = "deposit_cursor_block";
const MAX_BLOCKS_PER_SCAN = 2000n;
// Shrinks when the RPC refuses a range (providers cap the logs or blocks per query), grows back after.
let span = MAX_BLOCKS_PER_SCAN;
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

export function depositCursor(): bigint | null {
  const row = sqlite.query("SELECT value FROM settings WHERE key = ?").get(CURSOR_KEY) as { value: string } | null;
  return row ? BigInt(row.value) : null;
}

// Never backwards: two scans may overlap (scheduler and test clock), the later commit may be the older.
const setCursor = (block: bigint) =>
  sqlite
    .query(
      `INSERT INTO settings (key, value) VALUES (?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(excluded.value AS INTEGER) > CAST(settings.value AS INTEGER)`,
    )
    .run(CURSOR_KEY, String(block));

/** At first start with a chain: deposits count from the current block on. */
export async function initDepositCursor(): Promise<void> {
  if (depositCursor() !== null) return;
  const latest = await publicClient().getBlockNumber();
  await write(() => setCursor(latest));
}

export async function scanDeposits(): Promise<void> {
  await verifyChain();
  await initDepositCursor();
  const settings = chainSettings();
  const client = publicClient();
  let cursor = depositCursor()!;
  const tip = (await client.getBlockNumber()) - BigInt(settings.confirmations - 1);
  // USDC the treasury sends to an agent's address (an x402 payment to that agent, already credited in
  // the ledger) moves between the service's own addresses: not a deposit.
  const treasury = treasuryAccount().address;
  while (cursor < tip) {
    const toBlock: bigint = cursor + span < tip ? cursor + span : tip;
    let logs;
    try {
      logs = await client.getLogs({ address: settings.usdcAddress, event: transferEvent, fromBlock: cursor + 1n, toBlock });
    } catch (error) {
      if (span > 1n) span /= 2n;
      throw error;
    }
    if (span < MAX_BLOCKS_PER_SCAN) span *= 2n;
    const credits = logs.flatMap((log) => {
      const agentId = agentIdAtAddress(getAddress(log.args.to!));
      return agentId && log.args.value! > 0n && getAddress(log.args.from!) !== treasury ? [{ log, agentId }] : [];
    });
    await write(() => {
      for (const { log, agentId } of credits) {
        const id = uuid();
        const inserted = sqlite
          .query(
            `INSERT INTO chain_deposits (id, agent_id, tx_hash, log_index, block_number, from_address, amount, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING`,
          )
          .run(id, agentId, log.transactionHash, log.logIndex, log.blockNumber, log.args.from!, log.args.value!, clock.nowMs());
        if (inserted.changes === 0) continue;
        deposit(agentId, log.args.value!, "USDC", { type: "chain_deposit", id });
        const amount = toMajor(log.args.value!, "USDC");
        notifyFinancial(agentId, "deposit.credited", { depositId: id, amount, currency: "USDC", txHash: log.transactionHash, logIndex: log.logIndex, from: log.args.from }, `Deposit credited: ${amount} USDC`);
      }
      setCursor(toBlock);
    });
    cursor = toBlock;
  }
}
