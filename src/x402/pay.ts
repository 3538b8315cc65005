// POST /x402/pay: requests a resource for the agent; on 402 it validates the requirements (a positive
// whole amount of the configured USDC on the configured network, within maxAmount and the tier limit,
// not toward an agent that blocked the caller, not for a frozen caller), signs an EIP-3009
// authorization (exact) or a Permit2 permit for the maximum (upto: upto.ts) valid for at most
// MAX_AUTHORIZATION_SECONDS, debits the agent (exact) or holds the maximum (upto) (PENDING) and
// retries with it.
//
// Who signs: the treasury when payTo is outside agentbank; the internal settlement signer (chain/keys.ts)
// when payTo is another agent's deposit address. That signer holds no USDC, so the authorization cannot
// move the treasury's money on chain (submitted there it reverts): such a payment settles only in the
// ledger, when the payee's resource settles it through agentbank's own facilitator (settleAsSale), and is
// refunded once it expires otherwise. Treasury USDC never moves on chain to agentbank's own addresses.
//
// A resource that offers only `batch-settlement` is paid over a channel instead (batch/pay.ts).
//
// Once the signed authorization has left the service, the resource's answer decides nothing: a payment
// to an outside payee is SETTLED when the chain shows the authorization used (read right after the
// answer, and by the chain watcher), and REFUNDED only when it can no longer be used (settlement.ts).
import { assertNotBlockedBy } from "../agents/blocks";
import { assertNotFrozen } from "../agents/freeze";
import { findAgent } from "../agents/service";
import { agentIdAtAddress } from "../chain/addresses";
import { chainSettings, networkName } from "../chain/client";
import { authorizationUsed, signTransferAuthorization } from "../chain/eip3009";
import { internalSignerAccount, serviceSignerAt, treasuryAccount } from "../chain/keys";
import { clock } from "../clock";
import { committingKeyId } from "../keys/service";
import { actingAs, countAdded, find, insert, read, update, write, type Op } from "../db";
import { invalid, type ErrorCode } from "../errors";
import { type AgentId, uuid } from "../ids";
import { once, replaceOutcome, storedOutcome, storeOutcome, type IdempotencyScope, type Outcome } from "../idempotency/idempotency";
import { hold } from "../ledger/escrow";
import { post } from "../ledger/ledger";
import { toMajor, toMinor } from "../money";
import { Deferred } from "../door/deferred";
import { authorizeOutflow, NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { paymentView, type Payment } from "./payments";
import { paymentHeader, parseOffer, readRequirement, settlementClaim, type Offer, type Requirement } from "./protocol";
import { callResource, problemOf, resourceOf } from "./resource";
import { x402Payments } from "./schema";
import { settle, uptoDecision, type Decision } from "./settlement";
import { signUpto } from "./upto";
import { channelRequirement, payOverChannel } from "./batch/pay";

/** validBefore is at most this far ahead: a PENDING payment is decided within it (plus confirmations). */
export const MAX_AUTHORIZATION_SECONDS = 120;
const USDC = "USDC" as const;

export type PayRequest = { url: string; method?: string; headers?: Record<string, string>; body?: unknown; maxAmount: number };
type Signer = ReturnType<typeof treasuryAccount>;
type KeyedScope = IdempotencyScope & { key: string };
/** What was signed: its nonce and end (validBefore, or upto's deadline), and the header's payload. */
type Signed = { nonce: `0x${string}`; validBefore: bigint; payload: Record<string, unknown> };

async function signExact(signer: Signer, chosen: Requirement, validForSeconds: number): Promise<Signed> {
  const signed = await signTransferAuthorization({ signer, to: chosen.payTo, value: chosen.amount, validForSeconds });
  return { nonce: signed.nonce, validBefore: signed.validBefore, payload: { signature: signed.signature, authorization: signed.authorization } };
}

/** The cheapest requirement the service can pay within maxAmount; 400 with every reason otherwise. */
function choose(offer: Offer, maxAmount: bigint): Requirement {
  const { chainId, usdcAddress } = chainSettings();
  const expected = { networks: new Set([networkName(chainId), `eip155:${chainId}`]), usdc: usdcAddress };
  const read = offer.requirements.map((raw) => readRequirement(offer.version, raw, expected));
  const usable = read.filter((item): item is Requirement => typeof item !== "string");
  if (usable.length === 0) {
    const reasons = read.filter((item): item is string => typeof item === "string");
    const server = offer.error ? ` (the resource says: ${offer.error})` : "";
    throw invalid(`the resource asks for no payment the service can make${server}: ${reasons.join("; ") || "no requirements"}`);
  }
  const cheapest = usable.reduce((best, r) => (r.amount < best.amount ? r : best));
  if (cheapest.amount > maxAmount) {
    throw invalid(`the resource asks ${toMajor(cheapest.amount, USDC)} USDC, above maxAmount ${toMajor(maxAmount, USDC)}`);
  }
  return cheapest;
}

/**
 * A write op: the agent's USDC moves to x402 in flight, with the PENDING record (and the key's answer).
 * `signedFor`: the payee agent the authorization was signed for (by the internal signer), null if by the treasury.
 */
function* debit(agentId: AgentId, request: PayRequest, method: string, chosen: Requirement, signed: Signed, signedFor: string | null, keyed: KeyedScope | null, sanction: Sanction): Op<Payment | Outcome> {
  const stored = keyed && (yield* storedOutcome(keyed));
  if (stored) return stored;
  const internalAgentId = yield* agentIdAtAddress(chosen.payTo);
  // The signer was chosen from a read before signing: a treasury authorization never goes to an agent's address.
  if (internalAgentId !== signedFor) throw invalid("payTo became an agent's deposit address while the payment was signed: try again");
  if (internalAgentId === agentId) throw invalid("payTo is your own deposit address");
  if (internalAgentId) yield* assertNotBlockedBy(internalAgentId, agentId);
  // The approval of a held x402 payment binds the payee's address too: a resource that changed it is refused.
  const terms = { ...request, payTo: chosen.payTo };
  yield* authorizeOutflow({ agentId, kind: "X402", amount: chosen.amount, currency: USDC, counterpartyId: internalAgentId, terms }, sanction);
  const id = uuid();
  const now = clock.nowMs();
  let holdId: bigint | null = null;
  // upto: the maximum is held until the chain says what was paid (upto.ts).
  if (chosen.scheme === "upto") holdId = yield* hold({ agentId, amount: chosen.amount, currency: USDC, purpose: "X402_UPTO", reference: { type: "x402", id } });
  else yield* post({
    type: "X402_PAYMENT",
    reference: { type: "x402", id },
    postings: [
      { account: { agentId, kind: "available", currency: USDC }, amount: -chosen.amount, historyType: "X402_PAYMENT", counterpartyId: internalAgentId },
      { account: { agentId: null, kind: "x402_in_flight", currency: USDC }, amount: chosen.amount, historyType: "SYSTEM", counterpartyId: agentId },
    ],
  });
  const row = yield* insert(x402Payments, {
    id,
    agentId,
    url: request.url,
    method,
    amount: chosen.amount,
    currency: USDC,
    payTo: chosen.payTo,
    internalAgentId,
    network: chosen.network,
    x402Version: chosen.version,
    status: "PENDING",
    scheme: chosen.scheme,
    holdId,
    authorizationNonce: signed.nonce.toLowerCase(),
    validBefore: signed.validBefore,
    keyId: yield* committingKeyId(),
    createdAt: now,
    updatedAt: now,
  });
  yield* countAdded("x402_payments", agentId);
  // A retry with this key from now on replays this payment (PENDING) instead of paying again.
  if (keyed) yield* storeOutcome(keyed, 200, { payment: paymentView(row), resource: null });
  return row;
}

/** What payResource answers: no chain, the resource's offer unusable or above maxAmount, short of money, the payee's agent blocking the caller, or refused by the outflow check. */
export const PAY_RESOURCE_ERRORS = ["CHAIN_UNAVAILABLE", "FORBIDDEN", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

/**
 * An orchestration, not an op: it asks the resource, signs, debits, pays and records, each write an op
 * of its own, with the network between them. `idempotency.keyId`: the restricted key the agent called
 * with (its scope and budget apply), null for the agent key.
 */
export async function payResource(agentId: AgentId, request: PayRequest, idempotency: IdempotencyScope, sanction: Sanction = NO_SANCTION): Promise<Outcome> {
  const { keyId } = idempotency;
  chainSettings();
  const method = (request.method ?? "GET").toUpperCase();
  const maxAmount = toMinor(request.maxAmount, USDC, "maxAmount");
  const keyed = idempotency.key === undefined ? null : { ...idempotency, key: idempotency.key };
  const stored = keyed && (await read(storedOutcome(keyed)));
  if (stored) return stored;

  const headers = new Headers(request.headers ?? {});
  const body = request.body === undefined || method === "GET" ? undefined : typeof request.body === "string" ? request.body : JSON.stringify(request.body);
  if (body !== undefined && typeof request.body !== "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
  const first = await callResource(request.url, { method, headers, body });
  if ("failure" in first) throw invalid(first.failure);
  if (first.response.status !== 402) {
    const answer = { payment: null, resource: resourceOf(first) };
    if (!keyed) return { status: 200, body: answer, replayed: false };
    return write(() => once(keyed, 200, function* () {
      return answer;
    }));
  }
  const offer = parseOffer(first.response.headers, first.text);
  if (!offer) throw invalid("the resource answered 402 without readable payment requirements");
  const overChannel = channelRequirement(offer);
  if (overChannel) return payOverChannel({ agentId, request, method, headers, body, offer, maxAmount, keyed, keyId, sanction }, overChannel);
  const chosen = choose(offer, maxAmount);
  const own = serviceSignerAt(chosen.payTo);
  if (own) throw invalid(`payTo is the service's own ${own}`);
  // A frozen agent's authorization is never signed (the debit below refuses it too, should the brake
  // go on meanwhile): nothing leaves the service for a resource to submit.
  assertNotFrozen((await read(findAgent(agentId)))!);
  const payee = await read(agentIdAtAddress(chosen.payTo));
  const signer = payee ? internalSignerAccount() : treasuryAccount();
  const validForSeconds = Math.min(chosen.maxTimeoutSeconds, MAX_AUTHORIZATION_SECONDS);
  const signed = await (chosen.scheme === "upto" ? signUpto : signExact)(signer, chosen, validForSeconds);
  let debited: Payment | Outcome;
  try {
    debited = await write(() => actingAs(keyId, debit(agentId, request, method, chosen, signed, payee, keyed, sanction)));
  } catch (error) {
    if (!(error instanceof Deferred)) throw error;
    // Above the owner's approval amount: held instead. The signed authorization never left the service.
    if (!keyed) return { status: error.status, body: await write(() => actingAs(keyId, error.instead())), replayed: false };
    return write(() => actingAs(keyId, once(keyed, error.status, error.instead)));
  }
  if ("replayed" in debited) return debited;

  // From here on the authorization is out: whatever happens, the payment stays PENDING until the chain decides.
  headers.set(...paymentHeader(offer, chosen, signed.payload, debited.id));
  const paid = await callResource(request.url, { method, headers, body });
  const claim = "response" in paid ? settlementClaim(paid.response.headers) : null;
  let decision: Decision | null = null;
  try {
    // An internal payee's authorization is settled by agentbank's facilitator, never by the chain.
    if (chosen.scheme === "upto") decision = await uptoDecision(debited, claim);
    else if (payee === null && (await authorizationUsed(signed.nonce))) decision = (current) => settle(current, claim?.transaction ?? null);
  } catch {
    // The chain did not answer: the job decides later.
  }
  const resource = resourceOf(paid);
  const problem = problemOf(paid);
  const row = await write(function* () {
    // What the resource answered is kept even if the job has decided the payment meanwhile.
    const current = (yield* find(x402Payments, debited.id, true))!;
    const answered = yield* update(x402Payments, current.id, {
      resourceStatus: resource?.status ?? null,
      error: current.error ?? problem,
      transaction: current.transaction ?? claim?.transaction ?? null,
      updatedAt: clock.nowMs(),
    });
    const now = current.status === "PENDING" && decision ? yield* decision(answered) : answered;
    if (keyed) yield* replaceOutcome(keyed, 200, { payment: paymentView(now), resource });
    return now;
  });
  return { status: 200, body: { payment: paymentView(row), resource }, replayed: false };
}
