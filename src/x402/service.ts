// POST /x402/pay: requests a resource for the agent; on 402 it picks an "exact" USDC requirement on
// the configured network within maxAmount and the tier limit, debits the agent (PENDING), pays with
// a treasury-signed EIP-3009 authorization and retries. A 2xx with a settlement header settles the
// payment; anything else refunds it. When payTo is another agent's deposit address the money moves
// inside the ledger (the treasury's authorization, if the server settles it, only moves USDC
// between the service's own addresses, and the deposit watcher ignores treasury transfers).
import { signTransferAuthorization } from "../chain/eip3009";
import { chainSettings, networkName } from "../chain/client";
import { agentIdAtAddress } from "../chain/addresses";
import { findAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { sqlite, write } from "../db";
import { ApiError, invalid } from "../errors";
import { uuid } from "../ids";
import { storedOutcome, storeOutcome, type IdempotencyScope } from "../idempotency/idempotency";
import { post } from "../ledger/ledger";
import { toMajor, toMinor } from "../money";
import { adjustScore } from "../reputation/score";
import { assertWithinTier } from "../reputation/tiers";
import { notifyFinancial } from "../webhooks/outbox";
import { targetProblem } from "../webhooks/targets";
import { parseOffer, paymentHeader, settlement, type Requirement } from "./protocol";

export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESOURCE_BYTES = 1024 * 1024;
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
  status: string;
  transaction: string | null;
  resourceStatus: bigint | null;
  error: string | null;
  createdAt: bigint;
  updatedAt: bigint;
};

const COLUMNS = `id, agent_id AS agentId, url, method, amount, pay_to AS payTo, internal_agent_id AS internalAgentId, network,
  x402_version AS x402Version, status, "transaction", resource_status AS resourceStatus, error, created_at AS createdAt, updated_at AS updatedAt`;

const find = (id: string) => sqlite.query(`SELECT ${COLUMNS} FROM x402_payments WHERE id = ?`).get(id) as PaymentRow;

function paymentView(row: PaymentRow) {
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
    transaction: row.transaction,
    error: row.error,
    createdAt: iso(Number(row.createdAt)),
    updatedAt: iso(Number(row.updatedAt)),
  };
}

/** Fetches with the SSRF guard, a 10 s timeout, no redirects and a 1 MiB cap on the answer. */
async function fetchResource(url: string, init: RequestInit): Promise<{ response: Response; text: string }> {
  const problem = await targetProblem(url);
  if (problem) throw invalid(`url: ${problem}`);
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    throw new ApiError("VALIDATION_ERROR", `the resource did not answer: ${String((error as Error).message ?? error).split("\n")[0]}`);
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESOURCE_BYTES) {
      await reader.cancel();
      throw invalid(`the resource's answer is larger than ${MAX_RESOURCE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return { response, text: Buffer.concat(chunks).toString("utf8") };
}

function resourceOf(response: Response, text: string): Resource {
  let body: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      body = JSON.parse(text);
    } catch {}
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body };
}

/** The cheapest "exact" USDC requirement on our network within the caller's maximum. */
function choose(requirements: Requirement[], maxAmount: bigint): Requirement {
  const { chainId, usdcAddress } = chainSettings();
  const networks = new Set([networkName(chainId), `eip155:${chainId}`]);
  const usable = requirements.filter((r) => r.scheme === "exact" && networks.has(r.network) && r.asset.toLowerCase() === usdcAddress.toLowerCase());
  if (usable.length === 0) throw invalid(`the resource accepts no "exact" USDC payment on ${networkName(chainId)}`);
  const cheapest = usable.reduce((best, r) => (r.amount < best.amount ? r : best));
  if (cheapest.amount > maxAmount) {
    throw invalid(`the resource asks ${toMajor(cheapest.amount, USDC)} USDC, above maxAmount ${toMajor(maxAmount, USDC)}`);
  }
  return cheapest;
}

/** Inside write(): the agent's money moves to x402 in flight, with the PENDING record. */
function debit(agentId: string, request: PayRequest, chosen: Requirement, method: string): PaymentRow {
  assertWithinTier(Number(findAgent(agentId)!.score), chosen.amount, USDC);
  const id = uuid();
  const now = clock.nowMs();
  const internalAgentId = agentIdAtAddress(chosen.payTo);
  if (internalAgentId === agentId) throw invalid("payTo is your own deposit address");
  post({
    type: "X402_PAYMENT",
    reference: { type: "x402", id },
    postings: [
      { account: { agentId, kind: "available", currency: USDC }, amount: -chosen.amount, historyType: "X402_PAYMENT", counterpartyId: internalAgentId },
      { account: { agentId: null, kind: "x402_in_flight", currency: USDC }, amount: chosen.amount, historyType: "SYSTEM", counterpartyId: agentId },
    ],
  });
  sqlite
    .query(
      `INSERT INTO x402_payments (id, agent_id, url, method, amount, currency, pay_to, internal_agent_id, network, x402_version, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'USDC', ?, ?, ?, ?, 'PENDING', ?, ?)`,
    )
    .run(id, agentId, request.url, method, chosen.amount, chosen.payTo, internalAgentId, chosen.network, chosen.version, now, now);
  return find(id);
}

/** Inside write(): SETTLED (to the outside world, or to the internal agent) or REFUNDED. */
function finish(row: PaymentRow, settled: { transaction?: string } | null, resourceStatus: number, error: string | null): PaymentRow {
  const reference = { type: "x402", id: row.id };
  const amount = toMajor(row.amount, USDC);
  const inFlight = { account: { agentId: null, kind: "x402_in_flight" as const, currency: USDC }, amount: -row.amount, historyType: "SYSTEM" as const, counterpartyId: row.agentId };
  if (settled) {
    post({
      type: "X402_SETTLED",
      reference,
      postings: [
        inFlight,
        row.internalAgentId
          ? { account: { agentId: row.internalAgentId, kind: "available", currency: USDC }, amount: row.amount, historyType: "PAYMENT_RECEIVED", counterpartyId: row.agentId }
          : { account: { agentId: null, kind: "external", currency: USDC }, amount: row.amount, historyType: "SYSTEM", counterpartyId: row.agentId },
      ],
    });
    adjustScore(row.agentId, "PAYMENT_COMPLETED", reference);
    if (row.internalAgentId) {
      notifyFinancial(row.internalAgentId, "x402.received", { x402PaymentId: row.id, fromAgentId: row.agentId, amount, currency: USDC, url: row.url }, `x402 payment received: ${amount} USDC`);
    }
  } else {
    post({
      type: "X402_REFUNDED",
      reference,
      postings: [inFlight, { account: { agentId: row.agentId, kind: "available", currency: USDC }, amount: row.amount, historyType: "X402_REFUND" }],
    });
    notifyFinancial(row.agentId, "x402.refunded", { x402PaymentId: row.id, amount, currency: USDC, url: row.url, error }, `x402 payment refunded: ${amount} USDC`);
  }
  sqlite
    .query(`UPDATE x402_payments SET status = ?, "transaction" = ?, resource_status = ?, error = ?, updated_at = ? WHERE id = ?`)
    .run(settled ? "SETTLED" : "REFUNDED", settled?.transaction ?? null, resourceStatus, error, clock.nowMs(), row.id);
  return find(row.id);
}

const inFlightKeys = new Set<string>();

export async function payResource(agentId: string, request: PayRequest, idempotency: IdempotencyScope) {
  chainSettings();
  const method = (request.method ?? "GET").toUpperCase();
  const maxAmount = toMinor(request.maxAmount, USDC, "maxAmount");
  const keyed = idempotency.key === undefined ? null : { ...idempotency, key: idempotency.key };
  const lock = keyed ? `${agentId}:${keyed.key}` : null;
  if (keyed) {
    const stored = storedOutcome(keyed);
    if (stored) return stored;
    if (inFlightKeys.has(lock!)) throw new ApiError("IDEMPOTENCY_KEY_REUSED", "a request with this Idempotency-Key is still in progress");
    inFlightKeys.add(lock!);
  }
  try {
    const headers = new Headers(request.headers ?? {});
    const body = request.body === undefined || method === "GET" ? undefined : typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    if (body !== undefined && typeof request.body !== "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
    const first = await fetchResource(request.url, { method, headers, body });
    if (first.response.status !== 402) {
      const answer = { payment: null, resource: resourceOf(first.response, first.text) };
      if (keyed) await write(() => storeOutcome(keyed, 200, answer));
      return { status: 200, body: answer, replayed: false };
    }
    const offer = parseOffer(first.response.headers, first.text);
    if (!offer || offer.requirements.length === 0) throw invalid("the resource answered 402 without payment requirements");
    const chosen = choose(offer.requirements, maxAmount);
    const pending = await write(() => debit(agentId, request, chosen, method));
    let result: { row: PaymentRow; resource: Resource };
    try {
      const signed = await signTransferAuthorization({
        asset: chosen.asset as `0x${string}`,
        to: chosen.payTo,
        value: chosen.amount,
        validForSeconds: chosen.maxTimeoutSeconds,
        domain: chosen.extra,
      });
      const [name, value] = paymentHeader(offer, chosen, signed.signature, signed.authorization, pending.id);
      headers.set(name, value);
      const paid = await fetchResource(request.url, { method, headers, body });
      const resource = resourceOf(paid.response, paid.text);
      const settled = paid.response.ok ? settlement(paid.response.headers) : null;
      const ok = settled !== null && settled.success !== false;
      const error = ok ? null : paid.response.ok ? "the resource answered without a settlement header" : `the resource answered ${paid.response.status}`;
      const answerFor = (row: PaymentRow) => ({ payment: paymentView(row), resource });
      const row = await write(() => {
        const done = finish(pending, ok ? settled : null, paid.response.status, error);
        if (keyed) storeOutcome(keyed, 200, answerFor(done));
        return done;
      });
      result = { row, resource };
    } catch (error) {
      const message = error instanceof ApiError ? error.message : String((error as Error).message ?? error).split("\n")[0]!;
      const row = await write(() => finish(pending, null, 0, message));
      result = { row, resource: { status: 0, headers: {}, body: null } };
    }
    return { status: 200, body: { payment: paymentView(result.row), resource: result.resource }, replayed: false };
  } finally {
    if (lock) inFlightKeys.delete(lock);
  }
}
