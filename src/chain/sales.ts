// The sales the facilitator settles (x402_sales), found by their authorization, and crediting one:
// creditSale is called by the chain watcher for a Transfer log in a confirmed block, already counted
// once per (txHash, logIndex) in chain_deposits. The Transfer belongs to a sale when the same
// transaction used an EIP-3009 authorization of the sender that x402_sales holds for that seller and
// amount — matched by (payer, nonce), which the facilitator claims before it submits anything — or, for
// an upto sale (Permit2 announces no used nonce), when it is the transaction the facilitator signed
// for that sale (tx_hash, stored before the broadcast) from that payer to that seller: credited for
// the amount the Transfer moved, which the sale then records.
import { select, update, type Op, type Row } from "../db";
import { clock } from "../clock";
import { post } from "../ledger/ledger";
import { toMajor } from "../money";
import { adjustScore } from "../agents/score";
import { notifyFinancial } from "../webhooks/outbox";
import { x402Sales } from "./schema";
import { type AgentId } from "../ids";

export type Sale = Row<typeof x402Sales>;
export type UsedAuthorization = { authorizer: string; nonce: string };

/** The sale of this authorization (unique per payer and nonce), or null. */
export function* findSale(payer: string, nonce: string): Op<Sale | null> {
  return (yield* select(x402Sales, "payer = ? AND nonce = ?", payer, nonce.toLowerCase()))[0] ?? null;
}

/** A write op: the seller's sale credited (X402_SALE, +1 reputation, x402.sale); false if the log is no sale. */
/** The uncredited sale `log` pays: an exact one by the authorization its transaction used, an upto one by its transaction. */
function* saleOf(agentId: AgentId, log: { from: string; to: string; value: bigint; txHash: string }, used: UsedAuthorization[]): Op<Sale | null> {
  for (const { nonce } of used.filter((authorization) => authorization.authorizer === log.from)) {
    const [sale] = yield* select(x402Sales, "payer = ? AND nonce = ? AND agent_id = ? AND pay_to = ? AND amount = ? AND credited_at IS NULL", log.from, nonce.toLowerCase(), agentId, log.to, log.value);
    if (sale) return sale;
  }
  const [upto] = yield* select(x402Sales, "tx_hash = ? AND scheme = 'upto' AND payer = ? AND agent_id = ? AND pay_to = ? AND credited_at IS NULL", log.txHash, log.from, agentId, log.to);
  return upto ?? null;
}

/** A write op: the seller's sale credited (X402_SALE, +1 reputation, x402.sale); false if the log is no sale. */
export function* creditSale(agentId: AgentId, log: { from: string; to: string; value: bigint; txHash: string }, used: UsedAuthorization[]): Op<boolean> {
  const sale = yield* saleOf(agentId, log, used);
  if (!sale) return false;
  const reference = { type: "x402_sale", id: sale.id };
  yield* post({
    type: "X402_SALE",
    reference,
    postings: [
      { account: { agentId: null, kind: "external", currency: "USDC" }, amount: -log.value, historyType: "SYSTEM", counterpartyId: agentId },
      { account: { agentId, kind: "available", currency: "USDC" }, amount: log.value, historyType: "X402_SALE" },
    ],
  });
  yield* update(x402Sales, sale.id, { status: "SETTLED", txHash: log.txHash, amount: log.value, creditedAt: clock.nowMs(), updatedAt: clock.nowMs() });
  yield* adjustScore(agentId, "PAYMENT_COMPLETED", reference);
  const amount = toMajor(log.value, "USDC");
  yield* notifyFinancial(agentId, "x402.sale", { x402SaleId: sale.id, amount, currency: "USDC", payer: log.from, resource: sale.resource, txHash: log.txHash }, `x402 sale: ${amount} USDC received`);
  return true;
}
