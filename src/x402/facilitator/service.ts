// The x402 v2 facilitator agentbank runs for its own agents' paid endpoints (POST /verify, POST /settle,
// GET /supported under /x402/facilitator, the official JSON shapes): settling here, claiming and
// sending in claims.ts, what a payment must satisfy in verify.ts. The calling agent is the seller.
//
// Settling submits the buyer's exact transferWithAuthorization or upto Permit2 permit (through the
// official upto proxy, for the amount the seller asks) from the treasury (the operator pays the gas,
// within the day's gas budgets: gas.ts). The payment is claimed in x402_sales (unique payer + nonce)
// before anything is sent, so a second settle of it — replayed or in parallel — answers the first
// one's outcome and never submits again. The seller is credited by the chain watcher, from the
// Transfer log in a confirmed block, once (creditSale): for an outside buyer the facilitator moves no money.
//
// A buyer's payment-identifier id (the extension's info.id) is recorded with the claim: a settle
// naming an id already recorded answers that sale's outcome when it is the same payment, and
// payment_identifier_conflict when it is another.
//
// An agentbank agent buying through /x402/pay pays with an internal signer's authorization its payment
// debited: that one is never sent to the chain. Its settle claims the sale and settles the buyer's
// PENDING payment to the seller in the ledger, in one write (settleAsSale): success with no transaction.
import { type Hex } from "viem";
import { chainSettings, publicClient } from "../../chain/client";
import { findSale, type Sale } from "../../chain/sales";
import { x402Sales } from "../../chain/schema";
import { exclusive, find, read, select, write } from "../../db";
import { clock } from "../../clock";
import { type AgentId } from "../../ids";
import { TREASURY_SENDER } from "../../chain/sender";
import { claimAndSend, claimInLedger, failStaleClaims, PAYMENT_ID_CONFLICT, setSale, STALE_CLAIM_MS, type ClaimContext } from "./claims";
import type { FacilitatorRequest } from "./model";
import { payerOf, readPayment, type Refusal } from "./schemes";
import { check } from "./verify";

/** How long a settle waits for the receipt before answering settlement_pending with the transaction. */
export const SETTLE_WAIT_MS = 10_000;
/** How long a settle waits for the treasury's sender lock (other settles, the withdrawal sender) before SERVICE_BUSY. */
export const SETTLE_LOCK_WAIT_MS = 10_000;

type SettleAnswer = { success: boolean; errorReason?: string; errorMessage?: string; payer: string; transaction: string; network: string; amount?: string };

/** The payment-identifier extension's id (@x402/extensions/payment-identifier: 16 to 128 of [A-Za-z0-9_-]), or null. */
export function paymentIdOf(request: FacilitatorRequest): string | null {
  const extension = request.paymentPayload.extensions?.["payment-identifier"];
  const info = extension !== null && typeof extension === "object" ? (extension as { info?: unknown }).info : null;
  const id = info !== null && typeof info === "object" ? (info as { id?: unknown }).id : null;
  return typeof id === "string" && /^[a-zA-Z0-9_-]{16,128}$/.test(id) ? id : null;
}

/** A SUBMITTED sale decided by its receipt (status and gas used); null while the transaction is not mined. */
export async function decideByReceipt(row: Sale, receipt: { status: string; gasUsed: bigint } | null): Promise<Sale | null> {
  if (!receipt) return null;
  const failed = receipt.status !== "success";
  await write(() => setSale(row.id, failed ? "FAILED" : "SETTLED", { gas: receipt.gasUsed, error: failed ? "the settlement transaction reverted" : undefined }));
  return (await read(find(x402Sales, row.id)))!;
}

/** What a settle of this sale answers, waiting up to SETTLE_WAIT_MS for a claimed or broadcast one to be decided. */
async function outcomeOf(saleId: string, network: string): Promise<SettleAnswer> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    let row = (await read(find(x402Sales, saleId)))!;
    if (row.status === "SUBMITTED") row = (await decideByReceipt(row, await publicClient().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null))) ?? row;
    if (row.status === "SUBMITTING" && BigInt(clock.nowMs() - STALE_CLAIM_MS) > row.updatedAt) {
      await write(() => failStaleClaims(row.agentId));
      continue;
    }
    const base = { payer: row.payer, transaction: row.txHash ?? "", network };
    if (row.status === "SETTLED") return { success: true, ...base, amount: row.amount.toString() };
    if (row.status === "FAILED") return { success: false, errorReason: `invalid_${row.scheme}_evm_transaction_failed`, errorMessage: row.error ?? undefined, ...base };
    if (Date.now() >= deadline) {
      return { success: false, errorReason: "settlement_pending", errorMessage: "the transaction is not mined yet: settle again with the same payment for its outcome", ...base };
    }
    await Bun.sleep(100);
  }
}

const refused = (refusal: Refusal, payer: string, network: string): SettleAnswer => ({ success: false, errorReason: refusal.reason, errorMessage: refusal.message, payer, transaction: "", network });

/** `keyId`: the seller's restricted key that asks (null: the agent key), recorded with the sale. */
export async function settle(agentId: AgentId, request: FacilitatorRequest, keyId: string | null): Promise<SettleAnswer> {
  chainSettings();
  const network = request.paymentRequirements.network;
  const payment = readPayment(request);
  if ("reason" in payment) return refused(payment, payerOf(request), network);
  const { payer, nonce } = payment;
  const paymentId = paymentIdOf(request);
  if (paymentId !== null) {
    const [named] = await read(select(x402Sales, "agent_id = ? AND payer = ? AND payment_id = ?", agentId, payer, paymentId));
    if (named && named.nonce !== nonce) return refused(PAYMENT_ID_CONFLICT, payer, network);
  }
  const earlier = () => read(findSale(payer, nonce));
  const first = await earlier();
  if (first && first.agentId === agentId) return outcomeOf(first.id, network);
  const checked = await check(agentId, request, true);
  if ("reason" in checked) {
    // A parallel settle of the same payment may have claimed it during the checks: its outcome.
    const meanwhile = await earlier();
    if (meanwhile && meanwhile.agentId === agentId) return outcomeOf(meanwhile.id, network);
    return refused(checked, payer, network);
  }
  // The official upto facilitator's answer to a settlement of nothing: success, nothing sent, the permit unused.
  if (checked.amount === 0n) return { success: true, payer, transaction: "", network, amount: "0" };
  const context: ClaimContext = { agentId, keyId, resource: request.paymentPayload.resource?.url ?? null, paymentId };
  const claimed = checked.purchase
    ? await write(() => claimInLedger(context, payment, checked.amount))
    : await exclusive(TREASURY_SENDER, SETTLE_LOCK_WAIT_MS, () => claimAndSend(context, payment, checked.amount));
  if (claimed === null) {
    const claimant = (await earlier())!;
    if (claimant.agentId !== agentId) return refused({ reason: payment.scheme === "exact" ? "invalid_exact_evm_nonce_already_used" : "permit2_invalid_nonce", message: "this payment's nonce has already been used" }, payer, network);
    return outcomeOf(claimant.id, network);
  }
  if (typeof claimed !== "string") return refused(claimed, payer, network);
  return outcomeOf(claimed, network);
}
