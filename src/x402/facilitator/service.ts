// The x402 v2 facilitator agentbank runs for its own agents' paid endpoints (POST /verify, POST /settle,
// GET /supported under /x402/facilitator, the official JSON shapes): settling here, what a payment must
// satisfy in verify.ts. The calling agent is the seller: only the `exact` scheme on the configured
// network, in USDC, paid to one of its own deposit addresses.
//
// Settling submits the buyer's transferWithAuthorization from the treasury (the operator pays the gas,
// within the day's gas budgets: gas.ts). The authorization is claimed in x402_sales (unique
// payer + nonce) before anything is sent, so a second settle of it — replayed or in parallel — answers
// the first one's outcome and never submits again. The seller is credited by the chain watcher, from
// the Transfer log in a confirmed block, once (creditSale): for an outside buyer the facilitator moves no money.
//
// An agentbank agent buying through /x402/pay pays with an internal signer's authorization its payment debited:
// that one is never sent to the chain. Its settle claims the sale and settles the buyer's PENDING
// payment to the seller in the ledger, in one write (settleAsSale): success with no transaction.
//
// A claim is made and sent under the treasury's sender lock, moving SUBMITTING → SUBMITTED
// (compare-and-set) in the write that takes the treasury nonce, before the broadcast; a settle that
// waits for the lock past SETTLE_LOCK_WAIT_MS answers 503 SERVICE_BUSY having claimed nothing, so the
// same payment may be settled again. A claim still SUBMITTING after STALE_CLAIM_MS was never sent (the
// service stopped between the claim and the send): it is FAILED, its gas reservation released, and a
// late sender finds it so and sends nothing.
import { getAddress, isAddress, type Hex } from "viem";
import { chainSettings, publicClient } from "../../chain/client";
import { SETTLE_GAS, signSettlement, type TransferAuthorization } from "../../chain/eip3009";
import { broadcast, nextTreasuryNonce, takeTreasuryNonce, TREASURY_SENDER } from "../../chain/sender";
import { clock } from "../../clock";
import { exclusive, find, insertNew, read, run, update, write, type Op } from "../../db";
import { type AgentId, uuid } from "../../ids";
import { x402Sales, type SaleStatus } from "../../chain/schema";
import { settleAsSale } from "../settlement";
import { findSale, type Sale } from "../../chain/sales";
import type { FacilitatorRequest } from "./model";
import { checkGasBudgets, lockGasDay } from "./gas";
import { check, type Refusal } from "./verify";

/** How long a settle waits for the receipt before answering settlement_pending with the transaction. */
export const SETTLE_WAIT_MS = 10_000;
/** How long a settle waits for the treasury's sender lock (other settles, the withdrawal sender) before SERVICE_BUSY. */
export const SETTLE_LOCK_WAIT_MS = 10_000;
/** A claim still SUBMITTING after this was never sent (a settle sends within seconds of its claim). */
export const STALE_CLAIM_MS = 60_000;

type SettleAnswer = { success: boolean; errorReason?: string; errorMessage?: string; payer: string; transaction: string; network: string; amount?: string };

/** A write op: the seller's claims that were never sent FAILED, their gas reservation released. */
function* failStaleClaims(agentId: AgentId): Op<void> {
  yield* run(
    "UPDATE x402_sales SET status = 'FAILED', gas = 0, error = ?, updated_at = ? WHERE agent_id = ? AND status = 'SUBMITTING' AND updated_at < ?",
    "never submitted: the service stopped between the claim and the send; the buyer signs a new authorization",
    clock.nowMs(),
    agentId,
    clock.nowMs() - STALE_CLAIM_MS,
  );
}

/** The sale of `authorization` by `agentId` (with its restricted key `keyId`), as both claims write it. */
const soldBy = (agentId: AgentId, keyId: string | null, authorization: TransferAuthorization, resource: string | null, now: number) => ({
  id: uuid(),
  agentId,
  keyId,
  payer: authorization.from,
  nonce: authorization.nonce,
  payTo: authorization.to,
  amount: authorization.value,
  resource,
  createdAt: now,
  updatedAt: now,
});

/** A write op: the authorization is this seller's to settle, within the day's gas budgets; null if already claimed. */
function* claim(agentId: AgentId, keyId: string | null, authorization: TransferAuthorization, resource: string | null): Op<string | Refusal | null> {
  yield* failStaleClaims(agentId);
  const day = yield* lockGasDay();
  // Claimed by a parallel settle that committed before the lock: its outcome is answered, not a budget.
  if (yield* findSale(authorization.from, authorization.nonce)) return null;
  const refused = yield* checkGasBudgets(agentId, day);
  if (refused) return refused;
  const sale = yield* insertNew(x402Sales, { ...soldBy(agentId, keyId, authorization, resource, clock.nowMs()), status: "SUBMITTING", gas: SETTLE_GAS }, ["payer", "nonce"]);
  return sale?.id ?? null;
}

/**
 * A write op: an agentbank buyer's authorization, claimed and settled in the ledger at once (no gas, no
 * transaction); FAILED when its payment is no longer PENDING. Null if already claimed.
 */
function* claimInLedger(agentId: AgentId, keyId: string | null, authorization: TransferAuthorization, resource: string | null): Op<string | null> {
  const now = clock.nowMs();
  const sale = yield* insertNew(x402Sales, { ...soldBy(agentId, keyId, authorization, resource, now), status: "SETTLED", gas: 0, creditedAt: now }, ["payer", "nonce"]);
  if (!sale) return null;
  if (!(yield* settleAsSale(authorization.nonce, agentId, sale))) {
    yield* update(x402Sales, sale.id, { status: "FAILED", creditedAt: null, error: "the buyer's payment was already decided (expired or used on chain)" });
  }
  return sale.id;
}

/** A sale decided: compare-and-set, since the chain watcher may have credited (SETTLED) it meanwhile. */
const setSale = (id: string, status: SaleStatus, fields: { txHash?: string; gas?: bigint; error?: string }) =>
  run(
    `UPDATE x402_sales SET status = ?, tx_hash = COALESCE(?, tx_hash), gas = COALESCE(?, gas), error = COALESCE(?, error), updated_at = ? WHERE id = ? AND status <> 'SETTLED'`,
    status, fields.txHash ?? null, fields.gas ?? null, fields.error ?? null, clock.nowMs(), id,
  );

/** The receipt decides a SUBMITTED sale; null while the transaction is not mined. */
async function receiptOutcome(row: Sale): Promise<Sale | null> {
  const receipt = await publicClient().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null);
  if (!receipt) return null;
  const failed = receipt.status !== "success";
  await write(() => setSale(row.id, failed ? "FAILED" : "SETTLED", { gas: receipt.gasUsed, error: failed ? "the transferWithAuthorization transaction reverted" : undefined }));
  return (await read(find(x402Sales, row.id)))!;
}

/** What a settle of this sale answers, waiting up to SETTLE_WAIT_MS for a claimed or broadcast one to be decided. */
async function outcomeOf(saleId: string, network: string): Promise<SettleAnswer> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    let row = (await read(find(x402Sales, saleId)))!;
    if (row.status === "SUBMITTED") row = (await receiptOutcome(row)) ?? row;
    if (row.status === "SUBMITTING" && BigInt(clock.nowMs() - STALE_CLAIM_MS) > row.updatedAt) {
      await write(() => failStaleClaims(row.agentId));
      continue;
    }
    const base = { payer: row.payer, transaction: row.txHash ?? "", network };
    if (row.status === "SETTLED") return { success: true, ...base, amount: row.amount.toString() };
    if (row.status === "FAILED") return { success: false, errorReason: "invalid_exact_evm_transaction_failed", errorMessage: row.error ?? undefined, ...base };
    if (Date.now() >= deadline) {
      return { success: false, errorReason: "settlement_pending", errorMessage: "the transaction is not mined yet: settle again with the same payment for its outcome", ...base };
    }
    await Bun.sleep(100);
  }
}

/** `keyId`: the seller's restricted key that asks (null: the agent key), recorded with the sale. */
export async function settle(agentId: AgentId, request: FacilitatorRequest, keyId: string | null): Promise<SettleAnswer> {
  chainSettings();
  const network = request.paymentRequirements.network;
  const payer = request.paymentPayload.payload.authorization.from;
  const { nonce } = request.paymentPayload.payload.authorization;
  const earlier = () => (isAddress(payer) ? read(findSale(getAddress(payer), nonce)) : null);
  const first = await earlier();
  if (first && first.agentId === agentId) return outcomeOf(first.id, network);
  const checked = await check(agentId, request);
  if ("reason" in checked) {
    // A parallel settle of the same authorization may have claimed it during the checks: its outcome.
    const meanwhile = await earlier();
    if (meanwhile && meanwhile.agentId === agentId) return outcomeOf(meanwhile.id, network);
    return { success: false, errorReason: checked.reason, errorMessage: checked.message, payer, transaction: "", network };
  }
  const { authorization, signature, purchase } = checked;
  const resource = request.paymentPayload.resource?.url ?? null;
  const claimed = purchase
    ? await write(() => claimInLedger(agentId, keyId, authorization, resource))
    : await exclusive(TREASURY_SENDER, SETTLE_LOCK_WAIT_MS, () => claimAndSend(agentId, keyId, authorization, signature, resource));
  if (claimed === null) {
    const claimant = (await earlier())!;
    if (claimant.agentId !== agentId) return { success: false, errorReason: "invalid_exact_evm_nonce_already_used", errorMessage: "this authorization's nonce has already been used", payer, transaction: "", network };
    return outcomeOf(claimant.id, network);
  }
  if (typeof claimed !== "string") return { success: false, errorReason: claimed.reason, errorMessage: claimed.message, payer, transaction: "", network };
  return outcomeOf(claimed, network);
}

/**
 * Under the treasury's sender lock: the claim (null if already claimed), then its transaction signed
 * with the next treasury nonce, recorded SUBMITTED (compare-and-set) with that nonce and broadcast.
 * Claimed only once the lock is held, so a settle that waited past SETTLE_LOCK_WAIT_MS (SERVICE_BUSY)
 * has claimed nothing and the same payment may be settled again.
 */
async function claimAndSend(agentId: AgentId, keyId: string | null, authorization: TransferAuthorization, signature: Hex, resource: string | null): Promise<string | Refusal | null> {
  const claimed = await write(() => claim(agentId, keyId, authorization, resource));
  if (typeof claimed !== "string") return claimed;
  try {
    const treasuryNonce = await nextTreasuryNonce();
    const { raw, hash } = await signSettlement(authorization, signature, treasuryNonce);
    const recorded = await write(function* () {
      const moved = yield* run("UPDATE x402_sales SET status = 'SUBMITTED', tx_hash = ?, updated_at = ? WHERE id = ? AND status = 'SUBMITTING'", hash, clock.nowMs(), claimed);
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
