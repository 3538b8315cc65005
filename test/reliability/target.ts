// The server the reliability scripts drive: the compiled binary when RELIABILITY_SOURCE is unset and
// dist/agentbank exists (what users run), otherwise the source.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server";

export const BINARY = join(import.meta.dir, "../../dist/agentbank");

export function startTarget(env: Record<string, string> = {}) {
  const command = !process.env.RELIABILITY_SOURCE && existsSync(BINARY) ? [BINARY] : undefined;
  return startServer({ env, command });
}

export async function expectLedger(server: TestServer): Promise<boolean> {
  const check = await server.ledgerCheck();
  if (!check.ok) {
    console.error(`ledger check: ${JSON.stringify(check).slice(0, 500)}`);
    return false;
  }
  for (const total of check.totals) {
    if (Math.round((total.agentsAvailable + total.agentsHeld) * 1e8) !== Math.round(total.netInflow * 1e8)) {
      console.error(`money not conserved in ${total.currency}: ${JSON.stringify(total)}`);
      return false;
    }
  }
  return true;
}
