// Recovery of settlements whose transaction was recorded but whose outcome no settle saw (x402 issues
// #1062, #2294: a facilitator that lost a broadcast transaction and sent a second one). A job, run at
// start and on every tick after the chain watcher: each SUBMITTED sale is looked up by the hash stored
// before its broadcast — decided by its receipt, FAILED once its treasury nonce was provably taken by
// another transaction, and otherwise the same signed transaction is broadcast again (a node that lost
// it, a restart between the record and the broadcast). Nothing here ever signs a transaction: a
// payment has one, from its claim (claims.ts), or none.
import type { Hex } from "viem";
import { publicClient } from "../../chain/client";
import { x402Sales } from "../../chain/schema";
import { followTransaction } from "../../chain/sender";
import { config } from "../../config";
import { read, select, write } from "../../db";
import { setSale } from "./claims";
import { decideByReceipt } from "./service";

/** Sales recovered per run; the rest wait for the next tick. */
const RECOVER_BATCH = 100;

export async function recoverSettlements(): Promise<void> {
  if (!config.chain.configured) return;
  const submitted = await read(select(x402Sales, `status = 'SUBMITTED' ORDER BY treasury_nonce LIMIT ${RECOVER_BATCH}`));
  if (submitted.length === 0) return;
  const latest = await publicClient().getBlockNumber();
  for (const row of submitted) {
    // Sales from before the signed transaction was stored have only their hash: a receipt decides them.
    const fate =
      row.rawTx === null || row.treasuryNonce === null
        ? await publicClient().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => "pending" as const)
        : await followTransaction({ hash: row.txHash as Hex, raw: row.rawTx as Hex, nonce: row.treasuryNonce }, latest);
    if (fate === "replaced") await write(() => setSale(row.id, "FAILED", { gas: 0n, error: "the settlement transaction was replaced and never mined" }));
    else if (fate !== "pending") await decideByReceipt(row, fate);
  }
}
