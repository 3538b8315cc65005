// Deposit addresses, assigned once at registration inside its write op.
import { get, insert, run, select, type Op } from "../db";
import { addressAt } from "./keys";
import { depositAddresses } from "./schema";
import { type AgentId } from "../ids";

const COUNTER = "next_address_index";

export function* assignDepositAddress(agentId: AgentId): Op<string> {
  // A counter row, incremented in place: registrations at once (on several instances) wait for its row
  // lock and each take the next index. Started from the addresses already handed out.
  yield* run(
    `INSERT INTO settings (key, value) SELECT ?, CAST(COALESCE(MAX(address_index), 0) + 1 AS TEXT) FROM deposit_addresses WHERE true
     ON CONFLICT (key) DO NOTHING`,
    COUNTER,
  );
  const { value } = (yield* get<{ value: string }>("UPDATE settings SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = ? RETURNING value", COUNTER))!;
  const addressIndex = BigInt(value) - 1n;
  const { address } = yield* insert(depositAddresses, { agentId, addressIndex, address: addressAt(Number(addressIndex)) });
  return address;
}

/** The deposit address row `where` picks (its agent, or its address), or null. */
function* depositAddressWhere(where: string, ...params: unknown[]) {
  return (yield* select(depositAddresses, `${where} LIMIT 1`, ...params))[0] ?? null;
}

export function* depositAddressOf(agentId: AgentId): Op<string | null> {
  return (yield* depositAddressWhere("agent_id = ?", agentId))?.address ?? null;
}

/** The agent whose deposit address this is (checksummed, as stored). */
export function* agentIdAtAddress(address: string): Op<AgentId | null> {
  return (yield* depositAddressWhere("address = ?", address))?.agentId ?? null;
}

/** The lowest-index address handed out, to check at start that the mnemonic still derives it. */
export function* firstDepositAddress(): Op<{ index: number; address: string } | null> {
  const row = yield* depositAddressWhere("true ORDER BY address_index");
  return row ? { index: Number(row.addressIndex), address: row.address } : null;
}
