// The x402 v2 facilitator agentbank runs for its own agents' paid endpoints (POST /verify, POST /settle,
// GET /supported under /x402/facilitator, the official JSON shapes). The calling agent is the seller:
// only the `exact` scheme on the configured network, in USDC, paid to one of its own deposit addresses.
//
// Settling submits the buyer's transferWithAuthorization from the treasury (the operator pays the gas,
// within X402_FACILITATOR_GAS_PER_DAY per seller). The authorization is claimed in x402_sales (unique
// payer + nonce) before anything is sent, so a second settle of it — replayed or in parallel — answers
// the first one's outcome and never submits again. The seller is credited by the chain watcher, from
// the Transfer log in a confirmed block, once (creditSale): for an outside buyer the facilitator moves no money.
//
// An agentbank agent buying through /x402/pay pays with a treasury authorization its payment debited:
// that one is never sent to the chain. Its settle claims the sale and settles the buyer's PENDING
// payment to the seller in the ledger, in one write (settleAsSale): success with no transaction.
//
// A claim is sent under the treasury's sender lock, moving SUBMITTING → SUBMITTED (compare-and-set) in
// the write that takes the treasury nonce, before the broadcast. A claim still SUBMITTING after
// STALE_CLAIM_MS was never sent (the service stopped between the claim and the send): it is FAILED,
// its gas reservation released, and a late sender finds it so and sends nothing.
import { getAddress, isAddress, type Hex } from "viem";
import { isBlocked } from "../../agents/blocks";
import { chainSettings, networkName, publicClient, usdcBalanceOf } from "../../chain/client";
import { authorizationState, chainNowSeconds, SETTLE_GAS, signedByPayer, signSettlement, type TransferAuthorization } from "../../chain/eip3009";
import { treasuryAccount } from "../../chain/keys";
import { broadcast, nextTreasuryNonce, takeTreasuryNonce, TREASURY_SENDER } from "../../chain/sender";
import { depositAddressOf } from "../../chain/addresses";
import { clock } from "../../clock";
import { config } from "../../config";
import { exclusive, get, read, run, write, type Query } from "../../db";
import { uuid } from "../../ids";
import { settleAsSale } from "../service";
import { recordDiscovery } from "./discovery";
import type { FacilitatorRequest, PaymentPayload } from "./model";

export type { FacilitatorRequest } from "./model";


type Refusal = { reason: string; message: string };
/** An agentbank agent's /x402/pay payment that signed the authorization (the treasury is the payer). */
type Purchase = { buyerId: string; sellerId: string | null; status: string };
type Checked = { authorization: TransferAuthorization; signature: Hex; purchase: Purchase | null } | Refusal;

/** How long a settle waits for the receipt before answering settlement_pending with the transaction. */
export const SETTLE_WAIT_MS = 10_000;
/** An authorization must stay valid this long after verify (the official facilitator's margin). */
const VALID_BEFORE_MARGIN_SECONDS = 6n;
const DAY_MS = 86_400_000;
/** A claim still SUBMITTING after this was never sent (a settle sends within seconds of its claim). */
export const STALE_CLAIM_MS = 60_000;

const refuse = (reason: string, message: string): Refusal => ({ reason, message });

export function supported() {
  const { chainId } = chainSettings();
  return { kinds: [{ x402Version: 2, scheme: "exact", network: `eip155:${chainId}` }], extensions: ["bazaar"], signers: { "eip155:*": [treasuryAccount().address] } };
}

/** The EIP-3009 authorization, if its fields are addresses and whole numbers. */
function authorizationOf(payload: PaymentPayload): TransferAuthorization | null {
  const { from, to, value, validAfter, validBefore, nonce } = payload.payload.authorization;
  if (!isAddress(from) || !isAddress(to)) return null;
  return { from: getAddress(from), to: getAddress(to), value: BigInt(value), validAfter: BigInt(validAfter), validBefore: BigInt(validBefore), nonce: nonce.toLowerCase() as Hex };
}

/** Everything verify checks; a settle checks it again before claiming the authorization. */
async function check(agentId: string, request: FacilitatorRequest): Promise<Checked> {
  const { paymentPayload: payment, paymentRequirements: required } = request;
  const { chainId, usdcAddress } = chainSettings();
  if (payment.x402Version !== 2 || request.x402Version !== 2) return refuse("invalid_x402_version", "this facilitator speaks x402 version 2 only");
  if (required.scheme !== "exact" || payment.accepted.scheme !== "exact") return refuse("invalid_exact_evm_scheme", "only the exact scheme is settled");
  const networks = [`eip155:${chainId}`, networkName(chainId)];
  if (!networks.includes(required.network) || payment.accepted.network !== required.network) {
    return refuse("invalid_exact_evm_network_mismatch", `only ${networks[0]} is settled, and the payment must name the required network`);
  }
  if (!isAddress(required.asset) || getAddress(required.asset) !== getAddress(usdcAddress)) return refuse("invalid_asset", `only USDC (${usdcAddress}) is settled`);
  const own = await read(depositAddressOf(agentId));
  if (!isAddress(required.payTo) || own === null || getAddress(required.payTo) !== getAddress(own)) {
    return refuse("invalid_pay_to", `payTo ${required.payTo} is not one of your deposit addresses (${own}): the facilitator settles only payments to the calling agent`);
  }
  const authorization = authorizationOf(payment);
  if (!authorization) return refuse("invalid_exact_evm_payload", "the authorization's from and to must be addresses");
  if (authorization.to !== getAddress(required.payTo)) return refuse("invalid_exact_evm_recipient_mismatch", "the authorization pays another address than payTo");
  if (!/^\d{1,30}$/.test(required.amount) || authorization.value !== BigInt(required.amount)) {
    return refuse("invalid_exact_evm_payload_authorization_value_mismatch", `the authorization's value ${authorization.value} is not the required amount ${required.amount}`);
  }
  const now = await chainNowSeconds();
  if (authorization.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) return refuse("invalid_exact_evm_payload_authorization_valid_before", "the authorization has expired or expires within seconds");
  if (authorization.validAfter > now) return refuse("invalid_exact_evm_payload_authorization_valid_after", "the authorization is not valid yet");
  const signature = payment.payload.signature as Hex;
  if (!(await signedByPayer(authorization, signature))) return refuse("invalid_exact_evm_signature", "the signature is not the payer's over this authorization (EOA signatures only)");
  const seen = await read(findSale(authorization.from, authorization.nonce));
  if (seen || (await authorizationState(authorization.from, authorization.nonce))) return refuse("invalid_exact_evm_nonce_already_used", "this authorization's nonce has already been used");
  if (authorization.from !== getAddress(treasuryAccount().address)) {
    if ((await usdcBalanceOf(authorization.from)) < authorization.value) return refuse("invalid_exact_evm_insufficient_balance", "the payer's USDC balance is below the amount");
    return { authorization, signature, purchase: null };
  }
  // The treasury pays only what an agent's /x402/pay debited, to the payee that payment named.
  const purchase = await read(purchaseOf(authorization));
  if (!purchase || purchase.status !== "PENDING" || purchase.sellerId !== agentId) {
    return refuse("invalid_exact_evm_payload", "this treasury authorization is not an open agentbank payment to you");
  }
  if (await read(isBlocked(agentId, purchase.buyerId))) return refuse("payer_blocked", "the paying agent is one you blocked");
  return { authorization, signature, purchase };
}

function* purchaseOf(authorization: TransferAuthorization): Query<Purchase | null> {
  return yield* get<Purchase>("SELECT agent_id AS buyerId, internal_agent_id AS sellerId, status FROM x402_payments WHERE authorization_nonce = ?", authorization.nonce);
}

export async function verify(agentId: string, request: FacilitatorRequest) {
  const payer = request.paymentPayload.payload.authorization.from;
  const checked = await check(agentId, request);
  if ("reason" in checked) return { isValid: false, invalidReason: checked.reason, invalidMessage: checked.message, payer };
  await recordDiscovery(agentId, request);
  return { isValid: true, payer };
}

type SaleRow = {
  id: string;
  agentId: string;
  payer: string;
  nonce: string;
  amount: bigint;
  status: "SUBMITTING" | "SUBMITTED" | "SETTLED" | "FAILED";
  txHash: string | null;
  error: string | null;
  updatedAt: bigint;
};
const SALE_COLUMNS = "id, agent_id AS agentId, payer, nonce, amount, status, tx_hash AS txHash, error, updated_at AS updatedAt";
export const findSale = (payer: string, nonce: string) => get<SaleRow>(`SELECT ${SALE_COLUMNS} FROM x402_sales WHERE payer = ? AND nonce = ?`, payer, nonce.toLowerCase());

type SettleAnswer = { success: boolean; errorReason?: string; errorMessage?: string; payer: string; transaction: string; network: string; amount?: string };

/** A write op: the seller's claims that were never sent FAILED, their gas reservation released. */
function* failStaleClaims(agentId: string): Query<void> {
  yield* run(
    "UPDATE x402_sales SET status = 'FAILED', gas = 0, error = ?, updated_at = ? WHERE agent_id = ? AND status = 'SUBMITTING' AND updated_at < ?",
    "never submitted: the service stopped between the claim and the send; the buyer signs a new authorization",
    clock.nowMs(),
    agentId,
    clock.nowMs() - STALE_CLAIM_MS,
  );
}

/** A write op: the authorization is this seller's to settle, within its gas for the day; null if already claimed. */
function* claim(agentId: string, authorization: TransferAuthorization, resource: string | null): Query<string | Refusal | null> {
  yield* failStaleClaims(agentId);
  const now = clock.nowMs();
  const dayStart = now - (now % DAY_MS);
  const spent = (yield* get<{ gas: bigint | null }>("SELECT CAST(SUM(gas) AS BIGINT) AS gas FROM x402_sales WHERE agent_id = ? AND created_at >= ?", agentId, dayStart))!.gas ?? 0n;
  if (spent + SETTLE_GAS > BigInt(config.x402FacilitatorGasPerDay)) {
    return refuse("facilitator_gas_cap_reached", `the treasury's gas for your settlements today (X402_FACILITATOR_GAS_PER_DAY = ${config.x402FacilitatorGasPerDay}) is spent; retry after 00:00 UTC`);
  }
  const id = uuid();
  const inserted = yield* run(
    `INSERT INTO x402_sales (id, agent_id, payer, nonce, pay_to, amount, resource, status, gas, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'SUBMITTING', ?, ?, ?) ON CONFLICT (payer, nonce) DO NOTHING`,
    id, agentId, authorization.from, authorization.nonce, authorization.to, authorization.value, resource, SETTLE_GAS, now, now,
  );
  return inserted === 0 ? null : id;
}

/**
 * A write op: an agentbank buyer's authorization, claimed and settled in the ledger at once (no gas, no
 * transaction); FAILED when its payment is no longer PENDING. Null if already claimed.
 */
function* claimInLedger(agentId: string, authorization: TransferAuthorization, resource: string | null): Query<string | null> {
  const id = uuid();
  const now = clock.nowMs();
  const inserted = yield* run(
    `INSERT INTO x402_sales (id, agent_id, payer, nonce, pay_to, amount, resource, status, gas, credited_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'SETTLED', 0, ?, ?, ?) ON CONFLICT (payer, nonce) DO NOTHING`,
    id, agentId, authorization.from, authorization.nonce, authorization.to, authorization.value, resource, now, now, now,
  );
  if (inserted === 0) return null;
  if (!(yield* settleAsSale(authorization.nonce, agentId, { id, resource }))) {
    yield* run("UPDATE x402_sales SET status = 'FAILED', credited_at = NULL, error = ? WHERE id = ?", "the buyer's payment was already decided (expired or used on chain)", id);
  }
  return id;
}

const setSale = (id: string, status: SaleRow["status"], fields: { txHash?: string; gas?: bigint; error?: string }) =>
  run(
    `UPDATE x402_sales SET status = ?, tx_hash = COALESCE(?, tx_hash), gas = COALESCE(?, gas), error = COALESCE(?, error), updated_at = ? WHERE id = ? AND status <> 'SETTLED'`,
    status, fields.txHash ?? null, fields.gas ?? null, fields.error ?? null, clock.nowMs(), id,
  );

/** The receipt decides a SUBMITTED sale; null while the transaction is not mined. */
async function receiptOutcome(row: SaleRow): Promise<SaleRow | null> {
  const receipt = await publicClient().getTransactionReceipt({ hash: row.txHash as Hex }).catch(() => null);
  if (!receipt) return null;
  const failed = receipt.status !== "success";
  await write(() => setSale(row.id, failed ? "FAILED" : "SETTLED", { gas: receipt.gasUsed, error: failed ? "the transferWithAuthorization transaction reverted" : undefined }));
  return (await read(get<SaleRow>(`SELECT ${SALE_COLUMNS} FROM x402_sales WHERE id = ?`, row.id)))!;
}

/** What a settle of this sale answers, waiting up to SETTLE_WAIT_MS for a claimed or broadcast one to be decided. */
async function outcomeOf(saleId: string, network: string): Promise<SettleAnswer> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    let row = (await read(get<SaleRow>(`SELECT ${SALE_COLUMNS} FROM x402_sales WHERE id = ?`, saleId)))!;
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

export async function settle(agentId: string, request: FacilitatorRequest): Promise<SettleAnswer> {
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
  const claimed = await write(() => (purchase ? claimInLedger(agentId, authorization, resource) : claim(agentId, authorization, resource)));
  if (claimed === null) {
    const claimant = (await earlier())!;
    if (claimant.agentId !== agentId) return { success: false, errorReason: "invalid_exact_evm_nonce_already_used", errorMessage: "this authorization's nonce has already been used", payer, transaction: "", network };
    return outcomeOf(claimant.id, network);
  }
  if (typeof claimed !== "string") return { success: false, errorReason: claimed.reason, errorMessage: claimed.message, payer, transaction: "", network };
  try {
    await exclusive(TREASURY_SENDER, true, async () => {
      const treasuryNonce = await nextTreasuryNonce();
      const { raw, hash } = await signSettlement(authorization, signature, treasuryNonce);
      const recorded = await write(function* () {
        const moved = yield* run("UPDATE x402_sales SET status = 'SUBMITTED', tx_hash = ?, updated_at = ? WHERE id = ? AND status = 'SUBMITTING'", hash, clock.nowMs(), claimed);
        if (moved > 0) yield* takeTreasuryNonce(treasuryNonce);
        return moved > 0;
      });
      // Failed meanwhile as never sent: it stays so, and this transaction is never broadcast.
      if (recorded) await broadcast(raw);
    });
  } catch (error) {
    // Nothing was recorded as sent: the claim fails, and the gas reservation with it.
    await write(() => setSale(claimed, "FAILED", { gas: 0n, error: `not submitted: ${String((error as Error).message ?? error).split("\n")[0]}` }));
  }
  return outcomeOf(claimed, network);
}
