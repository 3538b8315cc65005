// An agent's batch-settlement channels as rows, ops and answers. Opening holds the deposit (the
// agent's available → held, a hold of purpose X402_CHANNEL); a charged voucher pays its charge out of
// that hold; closing settles the hold against what the chain shows claimed and gives back the rest.
import { clock, iso } from "../../clock";
import { all, find, insert, newestFirst, select, update, type Op, type PageWindow, type Row } from "../../db";
import { notFound } from "../../errors";
import { type AgentId, uuid } from "../../ids";
import { keyChainInForce } from "../../keys/service";
import { pendingHold, spendFromHold, voidHold } from "../../ledger/escrow";
import { post } from "../../ledger/ledger";
import { toMajor } from "../../money";
import { x402Channels } from "../schema";
import type { BatchRequirement, ChannelConfig } from "./wire";

export type Channel = Row<typeof x402Channels>;
const USDC = "USDC" as const;
const reference = (id: string) => ({ type: "x402_channel", id });

export function channelView(row: Channel) {
  const money = (value: bigint) => toMajor(value, row.currency);
  return {
    id: row.id,
    channelId: row.channelId,
    url: row.url,
    network: row.network,
    payTo: row.payTo,
    receiverAuthorizer: row.receiverAuthorizer,
    withdrawDelaySeconds: Number(row.withdrawDelay),
    currency: row.currency,
    deposit: money(row.deposit),
    charged: money(row.charged),
    signed: money(row.signed),
    remaining: money(row.deposit - row.charged),
    status: row.status,
    withdrawableAt: row.withdrawableAt === null ? null : iso(row.withdrawableAt),
    refunded: row.refunded === null ? null : money(row.refunded),
    transaction: row.transaction,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    closedAt: row.closedAt === null ? null : iso(row.closedAt),
  };
}

/** The channel's config as the escrow hashes it (the treasury pays and signs). */
export const configOf = (row: Channel, payer: `0x${string}`): ChannelConfig => ({
  payer,
  payerAuthorizer: payer,
  receiver: row.payTo as `0x${string}`,
  receiverAuthorizer: row.receiverAuthorizer as `0x${string}`,
  token: row.asset as `0x${string}`,
  withdrawDelay: Number(row.withdrawDelay),
  salt: row.salt as `0x${string}`,
});

/** The agent's OPEN channel (opened by this key) toward this requirement with room for `amount` more, locked. */
export function* usableChannel(agentId: AgentId, keyId: string | null, requirement: BatchRequirement): Op<Channel | null> {
  const rows = yield* select(
    x402Channels,
    `agent_id = ? AND status = 'OPEN' AND network = ? AND pay_to = ? AND receiver_authorizer = ? AND asset = ? AND withdraw_delay = ?
     AND ${keyId === null ? "key_id IS NULL" : "key_id = ?"} ORDER BY created_at`,
    ...[agentId, requirement.network, requirement.payTo, requirement.receiverAuthorizer, requirement.asset, requirement.withdrawDelay, ...(keyId === null ? [] : [keyId])],
  );
  return rows.find((row) => row.deposit - row.charged >= requirement.amount) ?? null;
}

export type Opening = {
  id: string;
  agentId: AgentId;
  url: string;
  requirement: BatchRequirement;
  salt: string;
  channelId: string;
  deposit: bigint;
  depositNonce: string;
  depositValidBefore: bigint;
  keyId: string | null;
};

/** The hold a channel's deposit is (its reference), made by the opening's outflow (batch/pay.ts). */
export const depositHold = (opening: Opening) => ({ agentId: opening.agentId, amount: opening.deposit, currency: USDC, purpose: "X402_CHANNEL" as const, reference: reference(opening.id) });

/** A write op, once the deposit is held: the channel recorded with the first voucher signed. */
export function* recordChannel(opening: Opening): Op<Channel> {
  const { id, agentId, requirement, deposit } = opening;
  const now = clock.nowMs();
  return yield* insert(x402Channels, {
    id,
    agentId,
    url: opening.url,
    network: requirement.network,
    payTo: requirement.payTo,
    receiverAuthorizer: requirement.receiverAuthorizer,
    asset: requirement.asset,
    assetName: requirement.assetName,
    assetVersion: requirement.assetVersion,
    withdrawDelay: BigInt(requirement.withdrawDelay),
    salt: opening.salt,
    channelId: opening.channelId,
    currency: USDC,
    deposit,
    depositNonce: opening.depositNonce,
    depositValidBefore: opening.depositValidBefore,
    signed: requirement.amount,
    charged: 0n,
    status: "OPEN",
    withdrawableAt: null,
    refunded: null,
    transaction: null,
    keyId: opening.keyId,
    createdAt: now,
    updatedAt: now,
    closedAt: null,
  });
}

export const newChannelId = () => uuid();

/** A write op: a voucher up to `cumulative` is about to leave; `signed` records the highest. */
export function* recordSigned(row: Channel, cumulative: bigint): Op<Channel> {
  return yield* update(x402Channels, row.id, { signed: cumulative > row.signed ? cumulative : row.signed, updatedAt: clock.nowMs() });
}

/** A write op: the resource charged `amount` for a request; it leaves the service out of the deposit's hold. */
export function* charge(row: Channel, amount: bigint): Op<Channel> {
  if (amount > 0n) yield* spendFromHold(yield* pendingHold(reference(row.id), row.agentId as AgentId), amount, "X402_PAYMENT");
  return yield* update(x402Channels, row.id, { charged: row.charged + amount, updatedAt: clock.nowMs() });
}

/**
 * A write op: the chain shows the channel emptied, `claimed` in total paid to the receiver and the rest
 * back with the treasury. A claim above what was charged (a voucher signed for a request the resource
 * did not charge) is paid from the hold too: nothing leaves without being charged; a claim below it is
 * given back. The hold then returns what remains.
 */
export function* closeChannelRow(row: Channel, claimed: bigint, transaction: string | null): Op<Channel> {
  const holdId = yield* pendingHold(reference(row.id), row.agentId as AgentId);
  if (claimed > row.charged) yield* spendFromHold(holdId, claimed - row.charged, "X402_PAYMENT");
  if (claimed < row.charged) {
    yield* post({
      type: "X402_REFUND",
      reference: reference(row.id),
      postings: [
        { account: { agentId: null, kind: "external", currency: row.currency }, amount: claimed - row.charged, historyType: "SYSTEM", counterpartyId: row.agentId },
        { account: { agentId: row.agentId as AgentId, kind: "available", currency: row.currency }, amount: row.charged - claimed, historyType: "X402_REFUND" },
      ],
    });
  }
  yield* voidHold(holdId);
  const now = clock.nowMs();
  return yield* update(x402Channels, row.id, { status: "CLOSED", charged: claimed, refunded: row.deposit - claimed, transaction, updatedAt: now, closedAt: now });
}

/** A write op: the treasury's withdrawal from the channel started; no request uses it any more. */
export function* markClosing(row: Channel, withdrawableAt: number): Op<Channel> {
  if (row.status !== "OPEN") return row;
  return yield* update(x402Channels, row.id, { status: "CLOSING", withdrawableAt: BigInt(withdrawableAt), updatedAt: clock.nowMs() });
}

/**
 * OPEN channels, at most `limit`, whose key — the restricted key (an MCP host's grant) whose request
 * opened them — is no longer in force along its chain (keys/service.ts keyChainInForce): revoked,
 * expired, rotated away. The agent key's channels (no key) end only when closed.
 */
export function* channelsOfEndedKeys(limit: number): Op<Channel[]> {
  const now = clock.nowMs();
  const ended: string[] = [];
  for (const { id } of yield* all<{ id: string }>("SELECT DISTINCT key_id AS id FROM x402_channels WHERE status = 'OPEN' AND key_id IS NOT NULL")) {
    if (!(yield* keyChainInForce(id, now))) ended.push(id);
  }
  if (ended.length === 0) return [];
  return yield* select(x402Channels, `status = 'OPEN' AND key_id IN (${ended.map(() => "?").join(", ")}) ORDER BY created_at LIMIT ?`, ...ended, limit);
}

export function* agentChannel(agentId: AgentId, id: string, lock = false): Op<Channel> {
  const row = yield* find(x402Channels, id, lock);
  if (!row || row.agentId !== agentId) throw notFound("x402 channel");
  return row;
}

export function listChannels(agentId: AgentId, window: PageWindow) {
  return newestFirst({ table: x402Channels, scope: { where: "agent_id = ?", params: [agentId] } }, window, channelView);
}
