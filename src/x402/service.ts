// POST /x402/pay: requests a resource for the agent; on 402 it validates the requirements (a positive
// whole amount of the configured USDC on the configured network, within maxAmount and the tier limit,
// not toward an agent that blocked the caller), signs a treasury EIP-3009 authorization valid for at
// most MAX_AUTHORIZATION_SECONDS, debits the agent (PENDING) and retries with it.
//
// Once the signed authorization has left the service, the resource's answer decides nothing: the
// payment is SETTLED when the chain shows the authorization used (read right after the answer, and by
// the chain watcher), and REFUNDED only when it can no longer be used (see resolvePending). When payTo
// is another agent's deposit address, settling credits that agent in the ledger; when that agent's
// resource settles through agentbank's own facilitator, the facilitator settles it in the ledger with
// no chain transaction (settleAsSale).
import { getAddress } from "viem";
import { assertNotBlockedBy } from "../agents/blocks";
import { agentIdAtAddress } from "../chain/addresses";
import { chainSettings, networkName } from "../chain/client";
import { authorizationUsed, signTransferAuthorization } from "../chain/eip3009";
import { treasuryAccount } from "../chain/keys";
import { authorizationUse, watchCursor } from "../chain/watcher";
import { clock, iso } from "../clock";
import { config } from "../config";
import { actingAs, all, FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { invalid, notFound } from "../errors";
import { Deferred } from "../auth/mutation";
import { uuid } from "../ids";
import { once, replaceOutcome, storedOutcome, storeOutcome, type IdempotencyScope, type Outcome } from "../idempotency/idempotency";
import { parseJson } from "../json";
import { post } from "../ledger/ledger";
import { toMajor, toMinor } from "../money";
import { outboundFetch, OutboundRefused, readCapped, TooLarge } from "../net/outbound";
import { adjustScore } from "../agents/score";
import { authorizeOutflow, NO_SANCTION, type Sanction } from "../outflows/check";
import { notifyFinancial } from "../webhooks/outbox";
import { paymentHeader, parseOffer, readRequirement, settlementClaim, type Offer, type Requirement } from "./protocol";

export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESOURCE_BYTES = 1024 * 1024;
/** validBefore is at most this far ahead: a PENDING payment is decided within it (plus confirmations). */
export const MAX_AUTHORIZATION_SECONDS = 120;
const USDC = "USDC" as const;

export type PayRequest = { url: string; method?: string; headers?: Record<string, string>; body?: unknown; maxAmount: number };
type Resource = { status: number; headers: Record<string, string>; body: unknown };

type PaymentRow = {
  id: string;
  agentId: string;
  url: string;
  method: string;
  amount: bigint;
  payTo: string;
  internalAgentId: string | null;
  network: string;
  x402Version: bigint;
  status: "PENDING" | "SETTLED" | "REFUNDED";
  authorizationNonce: string;
  validBefore: bigint;
  transaction: string | null;
  resourceStatus: bigint | null;
  error: string | null;
  createdAt: bigint;
  updatedAt: bigint;
};

const COLUMNS = `id, agent_id AS agentId, url, method, amount, pay_to AS payTo, internal_agent_id AS internalAgentId, network,
  x402_version AS x402Version, status, authorization_nonce AS authorizationNonce, valid_before AS validBefore,
  "transaction", resource_status AS resourceStatus, error, created_at AS createdAt, updated_at AS updatedAt`;

const find = (id: string) => get<PaymentRow>(`SELECT ${COLUMNS} FROM x402_payments WHERE id = ?`, id);
/** In a write op that decides the payment: the row, locked until the op commits. */
const lock = (id: string) => get<PaymentRow>(`SELECT ${COLUMNS} FROM x402_payments WHERE id = ? ${FOR_UPDATE}`, id);

export function paymentView(row: PaymentRow) {
  return {
    id: row.id,
    agentId: row.agentId,
    url: row.url,
    method: row.method,
    amount: toMajor(row.amount, USDC),
    currency: USDC,
    payTo: row.payTo,
    internalAgentId: row.internalAgentId,
    network: row.network,
    x402Version: Number(row.x402Version),
    status: row.status,
    authorizationExpiresAt: iso(Number(row.validBefore) * 1000),
    transaction: row.transaction,
    resourceStatus: row.resourceStatus === null ? null : Number(row.resourceStatus),
    error: row.error,
    createdAt: iso(Number(row.createdAt)),
    updatedAt: iso(Number(row.updatedAt)),
  };
}

type Answer = { response: Response; text: string } | { failure: string };

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split("\n")[0]!.slice(0, 300);

/** Calls the resource through the outbound guard, with a time and size bound; never throws. */
async function callResource(url: string, init: RequestInit): Promise<Answer> {
  try {
    const response = await outboundFetch(url, { ...init, timeoutMs: FETCH_TIMEOUT_MS });
    const bytes = await readCapped(response, MAX_RESOURCE_BYTES);
    return { response, text: new TextDecoder().decode(bytes) };
  } catch (error) {
    if (error instanceof OutboundRefused) return { failure: `url: ${error.message}` };
    if (error instanceof TooLarge) return { failure: `the resource's answer is ${error.message}` };
    if ((error as Error).name === "TimeoutError") return { failure: `the resource did not answer within ${FETCH_TIMEOUT_MS / 1000} s` };
    return { failure: `the resource did not answer: ${firstLine(error)}` };
  }
}

function resourceOf(answer: Answer): Resource | null {
  if ("failure" in answer) return null;
  let body: unknown = answer.text;
  if ((answer.response.headers.get("content-type") ?? "").includes("json")) {
    try {
      body = parseJson(answer.text);
    } catch {}
  }
  return { status: answer.response.status, headers: Object.fromEntries(answer.response.headers.entries()), body };
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

type Signed = Awaited<ReturnType<typeof signTransferAuthorization>>;

/** A write op: the agent's USDC moves to x402 in flight, with the PENDING record (and the key's answer). */
function* debit(agentId: string, request: PayRequest, method: string, chosen: Requirement, signed: Signed, keyed: KeyedScope | null, sanction: Sanction): Query<PaymentRow | Outcome> {
  const stored = keyed && (yield* storedOutcome(keyed));
  if (stored) return stored;
  if (chosen.payTo === getAddress(treasuryAccount().address)) throw invalid("payTo is the service's own treasury");
  const internalAgentId = yield* agentIdAtAddress(chosen.payTo);
  if (internalAgentId === agentId) throw invalid("payTo is your own deposit address");
  if (internalAgentId) yield* assertNotBlockedBy(internalAgentId, agentId);
  // The approval of a held x402 payment binds the payee's address too: a resource that changed it is refused.
  const terms = { ...request, payTo: chosen.payTo };
  yield* authorizeOutflow({ agentId, kind: "X402", amount: chosen.amount, currency: USDC, counterpartyId: internalAgentId, terms }, sanction);
  const id = uuid();
  const now = clock.nowMs();
  yield* post({
    type: "X402_PAYMENT",
    reference: { type: "x402", id },
    postings: [
      { account: { agentId, kind: "available", currency: USDC }, amount: -chosen.amount, historyType: "X402_PAYMENT", counterpartyId: internalAgentId },
      { account: { agentId: null, kind: "x402_in_flight", currency: USDC }, amount: chosen.amount, historyType: "SYSTEM", counterpartyId: agentId },
    ],
  });
  yield* run(
    `INSERT INTO x402_payments (id, agent_id, url, method, amount, currency, pay_to, internal_agent_id, network, x402_version, status,
       authorization_nonce, valid_before, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'USDC', ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?)`,
    id,
    agentId,
    request.url,
    method,
    chosen.amount,
    chosen.payTo,
    internalAgentId,
    chosen.network,
    chosen.version,
    signed.nonce.toLowerCase(),
    signed.validBefore,
    now,
    now,
  );
  const row = (yield* find(id))!;
  // A retry with this key from now on replays this payment (PENDING) instead of paying again.
  if (keyed) yield* storeOutcome(keyed, 200, { payment: paymentView(row), resource: null });
  return row;
}

const setStatus = (row: PaymentRow, status: PaymentRow["status"], transaction: string | null) =>
  run(`UPDATE x402_payments SET status = ?, "transaction" = COALESCE(?, "transaction"), updated_at = ? WHERE id = ?`, status, transaction, clock.nowMs(), row.id);

/**
 * A write op: the authorization was used on chain, or (`sale`) agentbank's facilitator settled it in the
 * ledger for the payee agent that sold the resource; the money leaves x402 in flight.
 */
function* settle(row: PaymentRow, transaction: string | null, sale: { id: string; resource: string | null } | null = null): Query<void> {
  const reference = { type: "x402", id: row.id };
  const amount = toMajor(row.amount, USDC);
  yield* post({
    type: "X402_SETTLED",
    reference,
    postings: [
      { account: { agentId: null, kind: "x402_in_flight", currency: USDC }, amount: -row.amount, historyType: "SYSTEM", counterpartyId: row.agentId },
      row.internalAgentId
        ? { account: { agentId: row.internalAgentId, kind: "available", currency: USDC }, amount: row.amount, historyType: sale ? "X402_SALE" : "PAYMENT_RECEIVED", counterpartyId: row.agentId }
        : { account: { agentId: null, kind: "external", currency: USDC }, amount: row.amount, historyType: "SYSTEM", counterpartyId: row.agentId },
    ],
  });
  yield* adjustScore(row.agentId, "PAYMENT_COMPLETED", reference);
  yield* setStatus(row, "SETTLED", transaction);
  yield* notifyFinancial(row.agentId, "x402.settled", { x402PaymentId: row.id, amount, currency: USDC, url: row.url, transaction: transaction ?? row.transaction }, `x402 payment settled: ${amount} USDC`);
  if (row.internalAgentId && sale) {
    // As for a sale settled on chain (creditSale): the seller's reputation and x402.sale, with no transaction.
    yield* adjustScore(row.internalAgentId, "PAYMENT_COMPLETED", { type: "x402_sale", id: sale.id });
    yield* notifyFinancial(
      row.internalAgentId,
      "x402.sale",
      { x402SaleId: sale.id, x402PaymentId: row.id, fromAgentId: row.agentId, amount, currency: USDC, payer: treasuryAccount().address, resource: sale.resource, txHash: null },
      `x402 sale: ${amount} USDC received`,
    );
  } else if (row.internalAgentId) {
    yield* notifyFinancial(row.internalAgentId, "x402.received", { x402PaymentId: row.id, fromAgentId: row.agentId, amount, currency: USDC, url: row.url }, `x402 payment received: ${amount} USDC`);
  }
}

/**
 * A write op for agentbank's facilitator, settling sale `sale` of `sellerId`: the PENDING payment that
 * sent this treasury authorization to the seller settles in the ledger (no chain transaction). False
 * when it is not PENDING any more (used on chain, or expired): nothing moves.
 */
export function* settleAsSale(nonce: string, sellerId: string, sale: { id: string; resource: string | null }): Query<boolean> {
  const found = yield* get<{ id: string }>("SELECT id FROM x402_payments WHERE authorization_nonce = ?", nonce.toLowerCase());
  const row = found && (yield* lock(found.id));
  if (!row || row.status !== "PENDING" || row.internalAgentId !== sellerId) return false;
  yield* settle(row, null, sale);
  return true;
}

/** A write op: the authorization can never be used; the money goes back to the agent. */
function* refund(row: PaymentRow, reason: string): Query<void> {
  const amount = toMajor(row.amount, USDC);
  yield* post({
    type: "X402_REFUNDED",
    reference: { type: "x402", id: row.id },
    postings: [
      { account: { agentId: null, kind: "x402_in_flight", currency: USDC }, amount: -row.amount, historyType: "SYSTEM", counterpartyId: row.agentId },
      { account: { agentId: row.agentId, kind: "available", currency: USDC }, amount: row.amount, historyType: "X402_REFUND" },
    ],
  });
  yield* setStatus(row, "REFUNDED", null);
  yield* run("UPDATE x402_payments SET error = COALESCE(error, ?) WHERE id = ?", reason, row.id);
  yield* notifyFinancial(row.agentId, "x402.refunded", { x402PaymentId: row.id, amount, currency: USDC, url: row.url, reason }, `x402 payment refunded: ${amount} USDC`);
}

type KeyedScope = IdempotencyScope & { key: string };

/** Why the paid request did not deliver, as far as the service can tell (not what decides the payment). */
function problemOf(answer: Answer): string | null {
  if ("failure" in answer) return answer.failure;
  const { response, text } = answer;
  if (response.status === 402) {
    const reason = parseOffer(response.headers, text)?.error;
    return `the resource refused the payment (402)${reason ? `: ${reason}` : ""}`;
  }
  if (!response.ok) return `the resource answered ${response.status}`;
  return settlementClaim(response.headers)?.reason ?? null;
}

/** `keyId`: the restricted key the agent called with (its scope and budget apply), null for the agent key. */
export async function payResource(agentId: string, request: PayRequest, idempotency: IdempotencyScope, sanction: Sanction = NO_SANCTION, keyId: string | null = null): Promise<Outcome> {
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
  const chosen = choose(offer, maxAmount);
  const signed = await signTransferAuthorization({ to: chosen.payTo, value: chosen.amount, validForSeconds: Math.min(chosen.maxTimeoutSeconds, MAX_AUTHORIZATION_SECONDS) });
  let debited: PaymentRow | Outcome;
  try {
    debited = await write(() => actingAs(keyId, debit(agentId, request, method, chosen, signed, keyed, sanction)));
  } catch (error) {
    if (!(error instanceof Deferred)) throw error;
    // Above the owner's approval amount: held instead. The signed authorization never left the service.
    if (!keyed) return { status: error.status, body: await write(() => actingAs(keyId, error.instead())), replayed: false };
    return write(() => actingAs(keyId, once(keyed, error.status, error.instead)));
  }
  if ("replayed" in debited) return debited;

  // From here on the authorization is out: whatever happens, the payment stays PENDING until the chain decides.
  headers.set(...paymentHeader(offer, chosen, signed.signature, signed.authorization, debited.id));
  const paid = await callResource(request.url, { method, headers, body });
  const claim = "response" in paid ? settlementClaim(paid.response.headers) : null;
  let used = false;
  try {
    used = await authorizationUsed(signed.nonce);
  } catch {
    // The chain did not answer: the job decides later.
  }
  const resource = resourceOf(paid);
  const problem = problemOf(paid);
  const row = await write(function* () {
    // What the resource answered is kept even if the job has decided the payment meanwhile.
    yield* run(
      `UPDATE x402_payments SET resource_status = ?, error = COALESCE(error, ?), "transaction" = COALESCE("transaction", ?), updated_at = ? WHERE id = ?`,
      resource?.status ?? null,
      problem,
      claim?.transaction ?? null,
      clock.nowMs(),
      debited.id,
    );
    const current = (yield* lock(debited.id))!;
    if (current.status === "PENDING" && used) yield* settle(current, claim?.transaction ?? null);
    const now = (yield* find(current.id))!;
    if (keyed) yield* replaceOutcome(keyed, 200, { payment: paymentView(now), resource });
    return now;
  });
  return { status: 200, body: { payment: paymentView(row), resource }, replayed: false };
}

/**
 * Decides a PENDING payment from what the chain shows: SETTLED when the watcher saw the authorization
 * used; REFUNDED when the watcher has scanned a confirmed block at or past validBefore without seeing
 * it used (no later block can use it); otherwise, with `ask`, the token's authorizationState at the
 * latest block may settle it early. Compare-and-set on PENDING: the job, reads and the pay call agree.
 */
async function resolve(row: PaymentRow, ask: boolean): Promise<void> {
  const use = await read(authorizationUse(row.authorizationNonce));
  const cursor = await read(watchCursor());
  let decision: ((current: PaymentRow) => Query<void>) | null = null;
  if (use) decision = (current) => settle(current, use.txHash);
  else if (cursor?.timestamp != null && cursor.timestamp >= row.validBefore) {
    decision = (current) => refund(current, "the authorization expired without being used");
  } else if (ask && (await authorizationUsed(row.authorizationNonce as `0x${string}`))) {
    decision = (current) => settle(current, null);
  }
  if (!decision) return;
  const decide = decision;
  await write(function* () {
    const current = yield* lock(row.id);
    if (current?.status === "PENDING") yield* decide(current);
  });
}

/** The job: every PENDING payment, oldest first. */
export async function resolvePending(): Promise<void> {
  if (!config.chain.configured) return;
  const pending = await read(all<PaymentRow>(`SELECT ${COLUMNS} FROM x402_payments WHERE status = 'PENDING' ORDER BY created_at LIMIT 500`));
  for (const row of pending) await resolve(row, true);
}

export async function getX402Payment(agentId: string, id: string) {
  const row = await read(find(id));
  if (!row || row.agentId !== agentId) throw notFound("x402 payment");
  if (row.status === "PENDING") await resolve(row, false);
  return paymentView((await read(find(id)))!);
}

export function listX402Payments(agentId: string, window: PageWindow) {
  return newestFirst({ table: "x402_payments", columns: COLUMNS, scope: { where: "agent_id = ?", params: [agentId] } }, window, paymentView);
}
