import { expect } from "bun:test";
import type { TestServer } from "./server";

/** The ledger invariants hold and money is conserved: agents' available + held = net inflow. */
export async function expectLedgerOk(server: TestServer): Promise<void> {
  const check = await server.ledgerCheck();
  expect(check).toMatchObject({ ok: true });
  for (const total of check.totals) {
    expect(Math.round((total.agentsAvailable + total.agentsHeld) * 1e8)).toBe(Math.round(total.netInflow * 1e8));
  }
}
