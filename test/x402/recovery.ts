// A settlement lost between its broadcast and its outcome, for the facilitator's recovery tests: the
// node drops the transaction and the service is killed before any settle saw it mined.
import { expect } from "bun:test";
import type { Hex } from "viem";
import { directDatabase, type DirectDatabase } from "../helpers/database";
import type { TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import type { OfficialX402 } from "./official";

/**
 * With automine off: starts `settle`, waits until the sale with `nonce` is SUBMITTED (its signed
 * transaction stored and broadcast), drops that transaction from the node, SIGKILLs the service and
 * starts it again on the same database; then waits until start-up's recovery has put the same
 * transaction (same hash) back in the node's pool, and mines it. Answers a new direct database handle
 * (the old one is closed) and the transaction's hash.
 */
export async function loseBroadcastAndRestart(x: OfficialX402, server: TestServer, database: DirectDatabase, nonce: string, settle: () => Promise<unknown>) {
  const rpc = (method: string, params: unknown[]) => x.anvil.client.request({ method: method as never, params: params as never });
  await rpc("evm_setAutomine", [false]);
  try {
    const inFlight = settle().catch(() => null);
    const hash = await waitFor(async () => {
      const [row] = await database.execute(`SELECT status, tx_hash FROM x402_sales WHERE nonce = '${nonce}'`);
      return row?.status === "SUBMITTED" ? (row.tx_hash as Hex) : undefined;
    });
    expect(await x.anvil.client.getTransaction({ hash })).toMatchObject({ hash });
    await rpc("anvil_dropTransaction", [hash]);
    database.close();
    await server.restart("SIGKILL");
    await inFlight;
    await waitFor(async () => (await x.anvil.client.getTransaction({ hash }).catch(() => undefined)) ?? undefined);
    await x.anvil.mine(1);
    return { database: directDatabase(server), hash };
  } finally {
    await rpc("evm_setAutomine", [true]);
  }
}
