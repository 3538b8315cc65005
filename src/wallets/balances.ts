// An agent's balances as answered (wallet, registration, the console): available and held per currency,
// in major units.
import type { Op } from "../db";
import { balancesOf } from "../ledger/ledger";
import { toMajor, type Currency } from "../money";
import { type AgentId } from "../ids";

export function* balancesView(agentId: AgentId): Op<{ currency: Currency; available: number; held: number }[]> {
  return (yield* balancesOf(agentId)).map((row) => ({
    currency: row.currency,
    available: toMajor(row.available, row.currency),
    held: toMajor(row.held, row.currency),
  }));
}

/** GET /wallets/balance: the agent's balance in every currency it has held. */
export function* walletView(agentId: AgentId) {
  return { agentId, balances: yield* balancesView(agentId) };
}
