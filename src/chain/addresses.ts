// Deposit addresses, assigned once at registration inside its write op.
import { sqlite } from "../db";
import { addressAt } from "./keys";

export function assignDepositAddress(agentId: string): string {
  const { next } = sqlite.query("SELECT COALESCE(MAX(address_index), 0) + 1 AS next FROM deposit_addresses").get() as { next: bigint };
  const address = addressAt(Number(next));
  sqlite.query("INSERT INTO deposit_addresses (agent_id, address_index, address) VALUES (?, ?, ?)").run(agentId, next, address);
  return address;
}

export function depositAddressOf(agentId: string): string | null {
  const row = sqlite.query("SELECT address FROM deposit_addresses WHERE agent_id = ?").get(agentId) as { address: string } | null;
  return row?.address ?? null;
}

/** The agent whose deposit address this is (checksummed, as stored). */
export function agentIdAtAddress(address: string): string | null {
  const row = sqlite.query("SELECT agent_id AS agentId FROM deposit_addresses WHERE address = ?").get(address) as { agentId: string } | null;
  return row?.agentId ?? null;
}

/** The lowest-index address handed out, to check at start that the mnemonic still derives it. */
export function firstDepositAddress(): { index: number; address: string } | null {
  const row = sqlite.query("SELECT address_index AS idx, address FROM deposit_addresses ORDER BY address_index LIMIT 1").get() as { idx: bigint; address: string } | null;
  return row ? { index: Number(row.idx), address: row.address } : null;
}
