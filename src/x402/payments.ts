// An agent's x402 payments as rows and answers: the row and its view, the payment that signed a
// treasury authorization, and the agent's newest-first list (one payment is read by settlement.ts,
// which decides it first if the chain already can).
import { iso } from "../clock";
import { FOR_UPDATE, keptCount, newestFirst, select, type PageWindow, type Op, type Row } from "../db";
import { toMajor } from "../money";
import { x402Payments } from "./schema";
import { type AgentId } from "../ids";

export type Payment = Row<typeof x402Payments>;

export function paymentView(row: Payment) {
  return {
    id: row.id,
    agentId: row.agentId,
    url: row.url,
    method: row.method,
    scheme: row.scheme,
    amount: toMajor(row.amount, row.currency),
    // Rows settled before settledAmount was recorded were exact: they charged amount.
    settledAmount: row.status === "SETTLED" ? toMajor(row.settledAmount ?? row.amount, row.currency) : null,
    currency: row.currency,
    payTo: row.payTo,
    internalAgentId: row.internalAgentId,
    network: row.network,
    x402Version: Number(row.x402Version),
    status: row.status,
    authorizationExpiresAt: iso(Number(row.validBefore) * 1000),
    transaction: row.transaction,
    resourceStatus: row.resourceStatus === null ? null : Number(row.resourceStatus),
    error: row.error,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The payment that signed the treasury authorization with this nonce, or null; `lock`: in a write op that decides it. */
export function* paymentOfAuthorization(nonce: string, lock = false): Op<Payment | null> {
  return (yield* select(x402Payments, `authorization_nonce = ? ${lock ? FOR_UPDATE : ""}`, nonce.toLowerCase()))[0] ?? null;
}

export function listX402Payments(agentId: AgentId, window: PageWindow) {
  return newestFirst({ table: x402Payments, scope: { where: "agent_id = ?", params: [agentId] }, total: () => keptCount("x402_payments", agentId) }, window, paymentView);
}
