// A worker thread of the periodic ledger check (check.ts): the database's invariants read on a read-only
// connection of its own, in one snapshot, while the service goes on answering.
import { readSnapshot } from "../db/snapshot";
import { checkDatabase } from "./check";
import type { ServiceSigners } from "../chain/keys";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ path: string; signers: ServiceSigners }>) => {
  try {
    postMessage({ check: readSnapshot(event.data.path, checkDatabase(event.data.signers)) });
  } catch (error) {
    postMessage({ error: String((error as Error).message ?? error) });
  }
};
