// Claiming a payment for settlement (x402_sales, unique per payer and nonce, and per seller, payer and
// payment-identifier id) and sending it. A claim is made and sent under the treasury's sender lock,
// moving SUBMITTING → SUBMITTED (compare-and-set) in the write that takes the treasury nonce and
// stores the signed transaction, its hash and that nonce, before the broadcast: whatever happens
// after, recovery (recovery.ts) finds the transaction by its hash and re-sends that same one, and no
// second transaction is ever built for the payment. A claim still SUBMITTING after STALE_CLAIM_MS was
// never sent (the service stopped between the claim and the send): it is FAILED, its gas reservation
// released, and a late sender finds it so and sends nothing.
import type { Hex } from "viem";
import { SETTLE_GAS, signSettlement } from "../../chain/eip3009";
import { signUptoSettlement, UPTO_SETTLE_GAS } from "../../chain/permit2";
import { findSale } from "../../chain/sales";
import { x402Sales, type SaleStatus } from "../../chain/schema";
import { broadcast, nextTreasuryNonce, takeTreasuryNonce } from "../../chain/sender";
import { clock } from "../../clock";
import { insertNew, run, select, update, write, type Op } from "../../db";
import { type AgentId, uuid } from "../../ids";
import { settleAsSale } from "../settlement";
import { checkGasBudgets, lockGasDay } from "./gas";
import { refuse, type Refusal, type SchemePayment } from "./schemes";

/** A claim still SUBMITTING after this was never sent (a settle sends within seconds of its claim). */
export const STALE_CLAIM_MS = 60_000;

/** What a claim records of the payment: the seller's key that settles it, the resource, the payment-identifier id. */
export type ClaimContext = { agentId: AgentId; keyId: string | null; resource: string | null; paymentId: string | null };

export const PAYMENT_ID_CONFLICT = refuse("payment_identifier_conflict", "this payment-identifier id was already used for another payment");

/** A write op: the seller's claims that were never sent FAILED, their gas reservation released. */
export function* failStaleClaims(agentId: AgentId): Op<void> {
  yield* run(
    "UPDATE x402_sales SET status = 'FAILED', gas = 0, error = ?, updated_at = ? WHERE agent_id = ? AND status = 'SUBMITTING' AND updated_at < ?",
    "never submitted: the service stopped between the claim and the send; the buyer signs a new authorization",
    clock.nowMs(),
    agentId,
    clock.nowMs() - STALE_CLAIM_MS,
  );
}

/** The sale of `payment` for `amount`, as both claims write it. */
const soldBy = (context: ClaimContext, payment: SchemePayment, amount: bigint, now: number) => ({
  id: uuid(),
  ...context,
  scheme: payment.scheme,
  payer: payment.payer,
  nonce: payment.nonce,
  payTo: payment.scheme === "exact" ? payment.authorization.to : payment.permit.witness.to,
  amount,
  createdAt: now,
  updatedAt: now,
});

/**
 * A write op: a refusal if the payment-identifier id already names another sale of this seller from
 * this payer. The id is the payer's own idempotency key: scoped to the payer, another buyer who learned
 * it cannot make the payer's payment refused.
 */
function* paymentIdTaken(context: ClaimContext, payer: string): Op<Refusal | null> {
  if (context.paymentId === null) return null;
  const [taken] = yield* select(x402Sales, "agent_id = ? AND payer = ? AND payment_id = ?", context.agentId, payer, context.paymentId);
  return taken ? PAYMENT_ID_CONFLICT : null;
}

const gasOf = (payment: SchemePayment) => (payment.scheme === "exact" ? SETTLE_GAS : UPTO_SETTLE_GAS);

/** A write op: the payment is this seller's to settle, within the day's gas budgets; null if already claimed. */
function* claim(context: ClaimContext, payment: SchemePayment, amount: bigint): Op<string | Refusal | null> {
  yield* failStaleClaims(context.agentId);
  const day = yield* lockGasDay();
  // Claimed by a parallel settle that committed before the lock: its outcome is answered, not a budget.
  if (yield* findSale(payment.payer, payment.nonce)) return null;
  // Every claim of the day waits for the day's lock: a parallel claim with the same id has committed.
  const taken = yield* paymentIdTaken(context, payment.payer);
  if (taken) return taken;
  const refused = yield* checkGasBudgets(context.agentId, day, gasOf(payment));
  if (refused) return refused;
  const sale = yield* insertNew(x402Sales, { ...soldBy(context, payment, amount, clock.nowMs()), status: "SUBMITTING", gas: gasOf(payment) }, ["payer", "nonce"]);
  return sale?.id ?? null;
}

/**
 * A write op: an agentbank buyer's authorization (exact), claimed and settled in the ledger at once (no
 * gas, no transaction); FAILED when its payment is no longer PENDING. Null if already claimed.
 */
export function* claimInLedger(context: ClaimContext, payment: SchemePayment, amount: bigint): Op<string | Refusal | null> {
  const taken = yield* paymentIdTaken(context, payment.payer);
  if (taken) return taken;
  const now = clock.nowMs();
  const sale = yield* insertNew(x402Sales, { ...soldBy(context, payment, amount, now), status: "SETTLED", gas: 0, creditedAt: now }, ["payer", "nonce"]);
  if (!sale) return null;
  if (!(yield* settleAsSale(payment.nonce, context.agentId, sale))) {
    yield* update(x402Sales, sale.id, { status: "FAILED", creditedAt: null, error: "the buyer's payment was already decided (expired or used on chain)" });
  }
  return sale.id;
}

/** A sale decided: compare-and-set, since the chain watcher may have credited (SETTLED) it meanwhile. */
export const setSale = (id: string, status: SaleStatus, fields: { gas?: bigint; error?: string }) =>
  run(
    `UPDATE x402_sales SET status = ?, gas = COALESCE(?, gas), error = COALESCE(?, error), updated_at = ? WHERE id = ? AND status <> 'SETTLED'`,
    status, fields.gas ?? null, fields.error ?? null, clock.nowMs(), id,
  );

const signFor = (payment: SchemePayment, amount: bigint, treasuryNonce: bigint) =>
  payment.scheme === "exact" ? signSettlement(payment.authorization, payment.signature as Hex, treasuryNonce) : signUptoSettlement(payment.permit, amount, payment.signature, treasuryNonce);

/**
 * Under the treasury's sender lock: the claim (null if already claimed), then its transaction signed
 * with the next treasury nonce, recorded SUBMITTED (compare-and-set) with the signed transaction, its
 * hash and that nonce, and broadcast. Claimed only once the lock is held, so a settle that waited past
 * the lock's wait (SERVICE_BUSY) has claimed nothing and the same payment may be settled again.
 */
export async function claimAndSend(context: ClaimContext, payment: SchemePayment, amount: bigint): Promise<string | Refusal | null> {
  const claimed = await write(() => claim(context, payment, amount));
  if (typeof claimed !== "string") return claimed;
  try {
    const treasuryNonce = await nextTreasuryNonce();
    const { raw, hash } = await signFor(payment, amount, treasuryNonce);
    const recorded = await write(function* () {
      const moved = yield* run(
        "UPDATE x402_sales SET status = 'SUBMITTED', tx_hash = ?, raw_tx = ?, treasury_nonce = ?, updated_at = ? WHERE id = ? AND status = 'SUBMITTING'",
        hash, raw, treasuryNonce, clock.nowMs(), claimed,
      );
      if (moved > 0) yield* takeTreasuryNonce(treasuryNonce);
      return moved > 0;
    });
    // Failed meanwhile as never sent: it stays so, and this transaction is never broadcast.
    if (recorded) await broadcast(raw);
  } catch (error) {
    // Nothing was recorded as sent: the claim fails, and the gas reservation with it.
    await write(() => setSale(claimed, "FAILED", { gas: 0n, error: `not submitted: ${String((error as Error).message ?? error).split("\n")[0]}` }));
  }
  return claimed;
}
