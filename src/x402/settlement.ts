// Deciding a PENDING x402 payment, only from what the chain shows: SETTLED once the treasury's
// authorization is used on chain (the money leaves x402 in flight, out), REFUNDED once it provably never
// can be (back to the payer). A payment to another agent's deposit address (signed by the internal
// settlement signer, which holds no USDC) is settled only by agentbank's own facilitator, in the ledger
// (settleAsSale), and refunded the same way when it expires unused. The job decides every PENDING
// payment, a read decides the one it reads. Every decision is compare-and-set on PENDING, under the
// row's lock.
import { internalSignerAccount } from "../chain/keys";
import { authorizationUse, watchCursor } from "../chain/watcher";
import { authorizationUsed } from "../chain/eip3009";
import { clock } from "../clock";
import { config } from "../config";
import { find, read, select, update, write, type Op } from "../db";
import { notFound } from "../errors";
import { postHoldInPart, voidHold } from "../ledger/escrow";
import { post, type AccountRef } from "../ledger/ledger";
import { toMajor } from "../money";
import { adjustScore } from "../agents/score";
import { notifyFinancial } from "../webhooks/outbox";
import { paymentOfAuthorization, paymentView, type Payment } from "./payments";
import type { SettlementClaim } from "./protocol";
import { x402Payments } from "./schema";
import { uptoVerdict } from "./upto";
import { type AgentId } from "../ids";

type Sale = { id: string; resource: string | null };

/**
 * A write op: the authorization was used on chain, or (`sale`) agentbank's facilitator settled it in the
 * ledger for the payee agent that sold the resource; the money leaves x402 in flight. `row` is locked.
 */
export function* settle(row: Payment, transaction: string | null, sale: Sale | null = null, paid: bigint = row.amount): Op<Payment> {
  const { currency } = row;
  const reference = { type: "x402", id: row.id };
  const amount = toMajor(paid, currency);
  const payee: AccountRef = row.internalAgentId ? { agentId: row.internalAgentId, kind: "available", currency } : { agentId: null, kind: "external", currency };
  const historyType = row.internalAgentId ? (sale ? "X402_SALE" : "PAYMENT_RECEIVED") : "SYSTEM";
  // upto: what was paid out of the held maximum, the rest back to the agent.
  if (row.holdId !== null) yield* postHoldInPart(row.holdId, paid, payee, historyType);
  else {
    yield* post({
      type: "X402_SETTLED",
      reference,
      postings: [
        { account: { agentId: null, kind: "x402_in_flight", currency }, amount: -paid, historyType: "SYSTEM", counterpartyId: row.agentId },
        { account: payee, amount: paid, historyType, counterpartyId: row.agentId },
      ],
    });
  }
  yield* adjustScore(row.agentId, "PAYMENT_COMPLETED", reference);
  const settled = yield* update(x402Payments, row.id, { status: "SETTLED", settledAmount: paid, transaction: transaction ?? undefined, updatedAt: clock.nowMs() });
  yield* notifyFinancial(row.agentId, "x402.settled", { x402PaymentId: row.id, amount, currency, url: row.url, transaction: settled.transaction }, `x402 payment settled: ${amount} USDC`);
  if (row.internalAgentId && sale) {
    // As for a sale settled on chain (creditSale): the seller's reputation and x402.sale, with no transaction.
    yield* adjustScore(row.internalAgentId, "PAYMENT_COMPLETED", { type: "x402_sale", id: sale.id });
    yield* notifyFinancial(
      row.internalAgentId,
      "x402.sale",
      { x402SaleId: sale.id, x402PaymentId: row.id, fromAgentId: row.agentId, amount, currency, payer: internalSignerAccount().address, resource: sale.resource, txHash: null },
      `x402 sale: ${amount} USDC received`,
    );
  } else if (row.internalAgentId) {
    yield* notifyFinancial(row.internalAgentId, "x402.received", { x402PaymentId: row.id, fromAgentId: row.agentId, amount, currency, url: row.url }, `x402 payment received: ${amount} USDC`);
  }
  return settled;
}

/**
 * A write op for agentbank's facilitator, settling sale `sale` of `sellerId`: the PENDING payment that
 * sent this treasury authorization to the seller settles in the ledger (no chain transaction). False
 * when it is not PENDING any more (used on chain, or expired): nothing moves.
 */
export function* settleAsSale(nonce: string, sellerId: string, sale: Sale): Op<boolean> {
  const row = yield* paymentOfAuthorization(nonce, true);
  if (!row || row.status !== "PENDING" || row.scheme !== "exact" || row.internalAgentId !== sellerId) return false;
  yield* settle(row, null, sale);
  return true;
}

/** A write op: the authorization can never be used; the money goes back to the agent. `row` is locked. */
function* refund(row: Payment, reason: string): Op<Payment> {
  const { currency } = row;
  const amount = toMajor(row.amount, currency);
  if (row.holdId !== null) yield* voidHold(row.holdId);
  else {
    yield* post({
      type: "X402_REFUNDED",
      reference: { type: "x402", id: row.id },
      postings: [
        { account: { agentId: null, kind: "x402_in_flight", currency }, amount: -row.amount, historyType: "SYSTEM", counterpartyId: row.agentId },
        { account: { agentId: row.agentId, kind: "available", currency }, amount: row.amount, historyType: "X402_REFUND" },
      ],
    });
  }
  const refunded = yield* update(x402Payments, row.id, { status: "REFUNDED", error: row.error ?? reason, updatedAt: clock.nowMs() });
  yield* notifyFinancial(row.agentId, "x402.refunded", { x402PaymentId: row.id, amount, currency, url: row.url, reason }, `x402 payment refunded: ${amount} USDC`);
  return refunded;
}

/** A decision on a PENDING payment, run on the locked row if it is still PENDING. */
export type Decision = (current: Payment) => Op<Payment>;

/**
 * The chain's decision on PENDING upto payment `row` (null: not yet). `claim`: the resource's payment
 * response; what the chain contradicts of it is kept as the payment's error. The charge never exceeds
 * the maximum held.
 */
export async function uptoDecision(row: Payment, claim: SettlementClaim | null): Promise<Decision | null> {
  const verdict = await uptoVerdict(row, claim);
  if (!verdict) return null;
  const { decided, settled, flag } = verdict;
  return function* (current) {
    // A contradiction is added to what the payment already says (an earlier one, the resource's failure).
    const flagged = flag && !current.error?.includes(flag) ? yield* update(x402Payments, current.id, { error: current.error ? `${current.error}; ${flag}` : flag }) : current;
    if (!decided) return flagged;
    if (!settled) return yield* refund(flagged, "the permit passed its deadline unused");
    return yield* settle(flagged, settled.transaction, null, settled.amount < flagged.amount ? settled.amount : flagged.amount);
  };
}

/**
 * Decides a PENDING payment from what the chain shows: SETTLED when the watcher saw the authorization
 * used; REFUNDED when the watcher has scanned a confirmed block at or past validBefore without seeing
 * it used (no later block can use it); otherwise, with `ask`, the token's authorizationState at the
 * latest block may settle a payment to an outside payee early (an internal payee's is the facilitator's
 * to settle). Compare-and-set on PENDING: the job, reads and the pay call agree.
 */
async function resolve(row: Payment, ask: boolean): Promise<void> {
  const { authorizationNonce: nonce, validBefore } = row;
  // A payment from before authorizations were recorded names none: the chain cannot decide it.
  if (nonce === null || validBefore === null) return;
  // The transaction the resource named, if any, is what it claimed (kept until the payment settles).
  const claim = row.transaction === null ? null : { success: true, transaction: row.transaction, reason: null, amount: null };
  // An upto payment is read from the chain's latest block: an RPC that does not answer leaves it PENDING.
  const decision = row.scheme === "upto" ? await uptoDecision(row, claim).catch(() => null) : await exactDecision(row, ask);
  if (!decision) return;
  await write(function* () {
    const current = yield* find(x402Payments, row.id, true);
    if (current?.status === "PENDING") yield* decision(current);
  });
}

async function exactDecision(row: Payment, ask: boolean): Promise<Decision | null> {
  const { authorizationNonce: nonce, validBefore } = row as Payment & { authorizationNonce: string; validBefore: bigint };
  const use = await read(authorizationUse(nonce));
  const cursor = await read(watchCursor());
  let decision: Decision | null = null;
  if (use) decision = (current) => settle(current, use.txHash);
  else if (cursor?.timestamp != null && cursor.timestamp >= validBefore) {
    decision = (current) => refund(current, "the authorization expired without being used");
  } else if (ask && row.internalAgentId === null && (await authorizationUsed(nonce as `0x${string}`))) {
    decision = (current) => settle(current, null);
  }
  return decision;
}

/** The job: every PENDING payment, oldest first. */
export async function resolvePending(): Promise<void> {
  if (!config.chain.configured) return;
  const pending = await read(select(x402Payments, "status = 'PENDING' ORDER BY created_at LIMIT 500"));
  for (const row of pending) await resolve(row, true);
}

/** Before one of the agent's payments is read: a PENDING one is decided first if the chain already can. */
export async function decideIfPending(agentId: AgentId, id: string): Promise<void> {
  const row = await read(find(x402Payments, id));
  if (row?.agentId === agentId && row.status === "PENDING") await resolve(row, false);
}

/** One of the agent's payments (the route decides it first if it is PENDING and the chain can). */
export function* getX402Payment(agentId: AgentId, id: string) {
  const row = yield* find(x402Payments, id);
  if (!row || row.agentId !== agentId) throw notFound("x402 payment");
  return paymentView(row);
}
