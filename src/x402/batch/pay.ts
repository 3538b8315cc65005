// POST /x402/pay for a resource that offers only `batch-settlement`: the request is paid by a voucher
// on a channel the treasury funds for this agent, and the agent pays what the resource charges.
//
// Opening a channel is the outflow: the deposit passes the outflow check (brakes, tier, the owner's
// policy — an approval binds its amount and payee —, the key's budget) and becomes a hold on the
// agent's balance before the treasury signs anything that leaves. The treasury's ERC-3009
// authorization moves the deposit on chain into the escrow when the seller's facilitator submits it.
// Each request then signs a cumulative voucher (what was charged so far plus this price); only what
// the resource says it charged (PAYMENT-RESPONSE extra.chargedAmount, at most the price) leaves the
// hold. A refused voucher or a failed request charges nothing, and the next voucher reuses the same
// cumulative amount, so at most one price is ever signed beyond what was charged: closing (close.ts)
// pays that too if the seller claims it on chain, never more than the chain shows.
//
// Only outside payees: a channel toward an agent's deposit address would move treasury USDC on chain
// to agentbank's own address (the deposit into the escrow, then the seller's claim), which pay.ts's rule
// forbids; it is refused.
import { assertNotFrozen } from "../../agents/freeze";
import { findAgent } from "../../agents/service";
import { agentIdAtAddress } from "../../chain/addresses";
import { chainSettings, networkName } from "../../chain/client";
import { authorizationState, chainNowSeconds } from "../../chain/eip3009";
import { serviceSignerAt, treasuryAccount } from "../../chain/keys";
import { actingAs, read, write, type Op } from "../../db";
import { Deferred } from "../../door/deferred";
import { invalid } from "../../errors";
import { once, replaceOutcome, storedOutcome, storeOutcome, type IdempotencyScope, type Outcome } from "../../idempotency/idempotency";
import { type AgentId } from "../../ids";
import { chainInForce, committingKeyOf } from "../../keys/service";
import { hold } from "../../ledger/escrow";
import { toMajor } from "../../money";
import { authorizeOutflow, type Sanction } from "../../outflows/check";
import { readRequirement, type Offer } from "../protocol";
import { callResource, resourceOf } from "../resource";
import { agentChannel, channelView, charge, configOf, depositHold, newChannelId, recordChannel, recordSigned, usableChannel, type Channel, type Opening } from "./channels";
import { batchHeader, channelIdOf, readBatchRequirements, chargeClaim, depositPayload, randomSalt, signDeposit, signVoucher, voucherPayload, type BatchRequirement } from "./wire";

const USDC = "USDC" as const;
/** The deposit is this many prices (the official client's default), within maxAmount. */
const DEPOSIT_PRICES = 5n;

export type ChannelCall = {
  agentId: AgentId;
  request: { url: string; maxAmount: number } & Record<string, unknown>;
  method: string;
  headers: Headers;
  body: string | undefined;
  offer: Offer;
  maxAmount: bigint;
  keyed: (IdempotencyScope & { key: string }) | null;
  keyId: string | null;
  sanction: Sanction;
};

/** What a channel payment answers: the channel after it, what this request cost, and the resource's answer. */
const answer = (row: Channel, charged: bigint, resource: unknown) => ({ payment: null, channel: { ...channelView(row), lastCharge: toMajor(charged, USDC) }, resource });

/**
 * The deposit of a new channel: DEPOSIT_PRICES prices, or the seller's announced extra.minDeposit if
 * higher, but never above maxAmount (the most this call may commit) and never below one price.
 */
function depositFor(requirement: BatchRequirement, maxAmount: bigint): bigint {
  const announced = requirement.raw.extra && typeof (requirement.raw.extra as Record<string, unknown>).minDeposit === "string" ? String((requirement.raw.extra as Record<string, unknown>).minDeposit) : null;
  const minimum = announced !== null && /^[0-9]{1,18}$/.test(announced) ? BigInt(announced) : 0n;
  const wanted = requirement.amount * DEPOSIT_PRICES > minimum ? requirement.amount * DEPOSIT_PRICES : minimum;
  return wanted > maxAmount ? maxAmount : wanted;
}

/** An orchestration: open or reuse the agent's channel, sign, call the resource, charge what it charged. */
export async function payOverChannel(call: ChannelCall, requirement: BatchRequirement): Promise<Outcome> {
  const { agentId, keyed, keyId } = call;
  if (requirement.amount > call.maxAmount) throw invalid(`the resource asks ${toMajor(requirement.amount, USDC)} USDC, above maxAmount ${toMajor(call.maxAmount, USDC)}`);
  const own = serviceSignerAt(requirement.payTo);
  if (own) throw invalid(`payTo is the service's own ${own}`);
  if (await read(agentIdAtAddress(requirement.payTo))) {
    throw invalid("batch-settlement toward an agent's deposit address is refused: its deposit would move treasury USDC on chain to agentbank's own address; ask the seller for \"exact\"");
  }
  assertNotFrozen((await read(findAgent(agentId)))!);
  const treasury = treasuryAccount();
  // The channel is the key's commitment, recorded against the key that outlives the request
  // (committingKeyOf: an MCP host's grant, not its hour-long token); its end closes the channel.
  const channelKey = keyId === null ? null : (await read(committingKeyOf(keyId))).id;
  let existing = await read(usableChannel(agentId, channelKey, requirement));
  // A channel never charged may have no deposit on chain (its first request failed before the seller
  // submitted it): a voucher on it would only be refused. Another channel is opened; that one is
  // closed once its deposit's authorization expires.
  if (existing && existing.charged === 0n && !(await authorizationState(treasury.address, existing.depositNonce as `0x${string}`))) existing = null;
  let row: Channel;
  let cumulative: bigint;
  let header: [string, string];
  if (existing) {
    cumulative = existing.charged + requirement.amount;
    const voucher = await signVoucher(treasury, existing.channelId as `0x${string}`, cumulative, requirement.chainId);
    header = batchHeader(call.offer, requirement, voucherPayload(configOf(existing, treasury.address), voucher));
    const signed = await write(() => actingAs(keyId, useChannel(call, existing.id, existing.charged, cumulative)));
    if ("replayed" in signed) return signed;
    row = signed;
  } else {
    const deposit = depositFor(requirement, call.maxAmount);
    const salt = randomSalt();
    const config = { payer: treasury.address, payerAuthorizer: treasury.address, receiver: requirement.payTo, receiverAuthorizer: requirement.receiverAuthorizer, token: requirement.asset, withdrawDelay: requirement.withdrawDelay, salt };
    const channelId = channelIdOf(config, requirement.chainId);
    cumulative = requirement.amount;
    const voucher = await signVoucher(treasury, channelId, cumulative, requirement.chainId);
    const validBefore = (await chainNowSeconds()) + BigInt(requirement.maxTimeoutSeconds);
    const authorization = await signDeposit(treasury, requirement, channelId, deposit, validBefore);
    header = batchHeader(call.offer, requirement, depositPayload(config, voucher, authorization.payload));
    const opening = { id: newChannelId(), agentId, url: call.request.url, requirement, salt, channelId, deposit, depositNonce: authorization.nonce, depositValidBefore: validBefore, keyId: channelKey };
    let opened: Channel | Outcome;
    try {
      opened = await write(() => actingAs(keyId, open(call, opening)));
    } catch (error) {
      if (!(error instanceof Deferred)) throw error;
      // Above the owner's approval amount: held instead. Nothing signed left the service.
      if (!keyed) return { status: error.status, body: await write(() => actingAs(keyId, error.instead())), replayed: false };
      return write(() => actingAs(keyId, once(keyed, error.status, error.instead)));
    }
    if ("replayed" in opened) return opened;
    row = opened;
  }

  // From here the voucher (and the deposit's authorization) are out.
  call.headers.set(...header);
  const paid = await callResource(call.request.url, { method: call.method, headers: call.headers, body: call.body });
  const claim = "response" in paid && paid.response.ok ? chargeClaim(paid.response.headers) : null;
  const resource = resourceOf(paid);
  const after = await write(function* () {
    const current = yield* agentChannel(agentId, row.id, true);
    // The charge is believed only within this voucher: at most its price, and inside the cumulative signed.
    const charged = claim && current.status === "OPEN" && claim.charged <= requirement.amount && current.charged + claim.charged <= cumulative ? claim.charged : 0n;
    const now = yield* charge(current, charged);
    const body = answer(now, charged, resource);
    if (keyed) yield* replaceOutcome(keyed, 200, body);
    return body;
  });
  return { status: 200, body: after, replayed: false };
}

/** A write op: the new channel's deposit checked as the outflow and held, the channel recorded. */
function* open(call: ChannelCall, opening: Opening): Op<Channel | Outcome> {
  const stored = call.keyed && (yield* storedOutcome(call.keyed));
  if (stored) return stored;
  const terms = { ...call.request, payTo: opening.requirement.payTo };
  yield* authorizeOutflow({ agentId: call.agentId, kind: "X402", amount: opening.deposit, currency: USDC, counterpartyId: null, terms }, call.sanction);
  yield* hold(depositHold(opening));
  const row = yield* recordChannel(opening);
  if (call.keyed) yield* storeOutcome(call.keyed, 200, answer(row, 0n, null));
  return row;
}

/**
 * A write op: the channel still open, as charged as when the voucher was signed, the agent not frozen,
 * the key that opened it still in force (403 KEY_INACTIVE: a request that passed the door just before
 * its key ended signs nothing more on it; the job closes it); the voucher about to leave recorded.
 */
function* useChannel(call: ChannelCall, id: string, charged: bigint, cumulative: bigint): Op<Channel | Outcome> {
  const stored = call.keyed && (yield* storedOutcome(call.keyed));
  if (stored) return stored;
  assertNotFrozen((yield* findAgent(call.agentId))!);
  if (call.keyId !== null) yield* chainInForce(call.keyId);
  const current = yield* agentChannel(call.agentId, id, true);
  // Another request charged (or closed) the channel since the voucher was signed on what it had charged then.
  if (current.status !== "OPEN" || current.charged !== charged || cumulative > current.deposit) {
    throw invalid("the channel changed while the voucher was signed: try again");
  }
  const row = yield* recordSigned(current, cumulative);
  if (call.keyed) yield* storeOutcome(call.keyed, 200, answer(row, 0n, null));
  return row;
}

/**
 * The batch-settlement requirement to pay over a channel, only when the offer has no usable "exact" one
 * (a one-off payment commits no deposit): the cheapest usable; a 400 with the reasons when the offer's
 * batch-settlement ones are all unusable and nothing else is either; null otherwise.
 */
export function channelRequirement(offer: Offer): BatchRequirement | null {
  const { chainId, usdcAddress } = chainSettings();
  const expected = { networks: new Set([networkName(chainId), `eip155:${chainId}`]), usdc: usdcAddress, chainId };
  if (offer.requirements.some((raw) => typeof readRequirement(offer.version, raw, expected) !== "string")) return null;
  const { usable, reasons } = readBatchRequirements(offer, expected);
  if (usable.length === 0) {
    if (reasons.length === 0) return null;
    throw invalid(`the resource asks for no payment the service can make: ${reasons.join("; ")}`);
  }
  return usable.reduce((best, r) => (r.amount < best.amount ? r : best));
}
