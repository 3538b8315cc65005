// Deposit addresses, assigned once at registration inside its write op.
import { get, run, type Query } from "../db";
import { addressAt } from "./keys";

const COUNTER = "next_address_index";

export function* assignDepositAddress(agentId: string): Query<string> {
  // A counter row, incremented in place: registrations at once (on several instances) wait for its row
  // lock and each take the next index. Started from the addresses already handed out.
  yield* run(
    `INSERT INTO settings (key, value) SELECT ?, CAST(COALESCE(MAX(address_index), 0) + 1 AS TEXT) FROM deposit_addresses WHERE true
     ON CONFLICT (key) DO NOTHING`,
    COUNTER,
  );
  const { value } = (yield* get<{ value: string }>("UPDATE settings SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = ? RETURNING value", COUNTER))!;
  const index = BigInt(value) - 1n;
  const address = addressAt(Number(index));
  yield* run("INSERT INTO deposit_addresses (agent_id, address_index, address) VALUES (?, ?, ?)", agentId, index, address);
  return address;
}

export function* depositAddressOf(agentId: string): Query<string | null> {
  return (yield* get<{ address: string }>("SELECT address FROM deposit_addresses WHERE agent_id = ?", agentId))?.address ?? null;
}

/** The agent whose deposit address this is (checksummed, as stored). */
export function* agentIdAtAddress(address: string): Query<string | null> {
  return (yield* get<{ agentId: string }>("SELECT agent_id AS agentId FROM deposit_addresses WHERE address = ?", address))?.agentId ?? null;
}

/** The lowest-index address handed out, to check at start that the mnemonic still derives it. */
export function* firstDepositAddress(): Query<{ index: number; address: string } | null> {
  const row = yield* get<{ idx: bigint; address: string }>("SELECT address_index AS idx, address FROM deposit_addresses ORDER BY address_index LIMIT 1");
  return row ? { index: Number(row.idx), address: row.address } : null;
}
