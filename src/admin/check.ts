// GET /admin/ledger/check: every invariant at once. An orchestration, not an op: each check reads its
// own snapshot, and the chain's is asked over the network.
import { serviceSigners } from "../chain/keys";
import { read } from "../db";
import { checkLedger } from "../ledger/check";
import { checkSales } from "../reconciliation/sales";
import { checkInFlight, reconcileChain } from "../reconciliation/service";

export async function checkEverything() {
  const ledger = await read(checkLedger(), true);
  const inFlight = await read(checkInFlight(), true);
  const x402Sales = await read(checkSales(serviceSigners()), true);
  const chain = await reconcileChain();
  // A chain that cannot be read now is reported, not counted as a mismatch.
  return { ...ledger, ok: ledger.ok && inFlight.ok && x402Sales.ok && chain.status !== "mismatch", inFlight, x402Sales, chain };
}
