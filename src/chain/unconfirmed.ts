// What the chain shows beyond the watcher's cursor, for the operator's metrics (src/metrics reads it at
// scrape time, never the RPC): the head block, and the USDC transfers to agents' deposit addresses in the
// blocks still short of CONFIRMATIONS (the watcher credits them once they have them; nothing is credited
// from here). A job of its own, so the watcher is untouched; it runs where the jobs run.
import { getAddress, parseAbiItem } from "viem";
import { read, together } from "../db";
import { agentIdAtAddress } from "./addresses";
import { chainSettings, publicClient, verifyChain } from "./client";

/** Blocks looked at, at most, below the head (a CONFIRMATIONS of 1000 must not mean 1000 blocks of logs every tick). */
const MAX_WINDOW = 50n;
const transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

let seen: { headBlock: bigint; deposits: number; amount: bigint; at: number } | null = null;

/** The head block and the unconfirmed deposits the job saw last (null before its first run in this process). */
export const unconfirmedDeposits = () => seen;

/** The job: reads the head and the unconfirmed blocks' Transfer logs, counts those to a deposit address. */
export async function countUnconfirmedDeposits(): Promise<void> {
  await verifyChain();
  const { usdcAddress, confirmations } = chainSettings();
  const client = publicClient();
  const head = await client.getBlockNumber();
  const window = BigInt(confirmations - 1) < MAX_WINDOW ? BigInt(confirmations - 1) : MAX_WINDOW;
  const from = head + 1n > window ? head + 1n - window : 0n;
  const logs = window > 0n ? await client.getLogs({ address: usdcAddress, event: transfer, fromBlock: from, toBlock: head }) : [];
  const paying = logs.filter((log) => log.args.to && log.args.value);
  const recipients = [...new Set(paying.map((log) => getAddress(log.args.to!)))];
  const agents = recipients.length > 0 ? await read(together(...recipients.map((address) => agentIdAtAddress(address)))) : [];
  const deposit = new Set(recipients.filter((_, index) => agents[index] !== null));
  const deposits = paying.filter((log) => deposit.has(getAddress(log.args.to!)));
  seen = { headBlock: head, deposits: deposits.length, amount: deposits.reduce((sum, log) => sum + log.args.value!, 0n), at: Date.now() };
}
