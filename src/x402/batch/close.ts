// Closing a batch-settlement channel: the chain decides. The service asks the resource for the
// cooperative refund (a refund payload with a voucher at what was charged: the seller claims that and
// returns the rest to the treasury in one transaction), then reads the escrow: once the channel's
// balance equals what was claimed on it, nothing more can leave it, and the agent's hold is settled
// against the claim (closeChannelRow) and the rest given back.
import { type Hex } from "viem";
import { authorizationState, chainNowSeconds } from "../../chain/eip3009";
import { clock, iso } from "../../clock";
import { treasuryAccount } from "../../chain/keys";
import { read, select, write } from "../../db";
import { ApiError } from "../../errors";
import { type AgentId } from "../../ids";
import { parseOffer } from "../protocol";
import { x402Channels } from "../schema";
import { callResource } from "../resource";
import { agentChannel, channelsOfEndedKeys, channelView, closeChannelRow, configOf, markClosing, type Channel } from "./channels";
import { escrowState, finalizeWithdraw, initiateWithdraw } from "./escrow";
import { batchHeader, readBatchRequirements, refundPayload, signVoucher } from "./wire";

/** Asks the resource to refund the channel cooperatively; the transaction it names, or null. Never throws. */
async function askRefund(row: Channel): Promise<string | null> {
  const probe = await callResource(row.url, { method: "GET" });
  if ("failure" in probe || probe.response.status !== 402) return null;
  const offer = parseOffer(probe.response.headers, probe.text);
  if (!offer) return null;
  const chainId = Number(row.network.slice("eip155:".length));
  const { usable } = readBatchRequirements(offer, { networks: new Set([row.network]), usdc: row.asset as `0x${string}`, chainId });
  const requirement = usable.find((r) => r.payTo === row.payTo && r.receiverAuthorizer === row.receiverAuthorizer && BigInt(r.withdrawDelay) === row.withdrawDelay);
  if (!requirement) return null;
  const treasury = treasuryAccount();
  const voucher = await signVoucher(treasury, row.channelId as Hex, row.charged, chainId);
  const headers = new Headers([batchHeader(offer, requirement, refundPayload(configOf(row, treasury.address), voucher))]);
  const answer = await callResource(row.url, { method: "GET", headers });
  if ("failure" in answer) return null;
  const header = answer.response.headers.get("payment-response");
  try {
    const claim = header ? (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { transaction?: unknown }) : null;
    return typeof claim?.transaction === "string" && /^0x[0-9a-fA-F]{64}$/.test(claim.transaction) ? claim.transaction : null;
  } catch {
    return null;
  }
}

/**
 * POST /x402/channels/{id}/close. The chain decides each step: a channel it shows emptied (balance =
 * claimed) is settled; otherwise the resource is asked for the cooperative refund; if it does not
 * give it, the treasury starts the escrow's timed withdrawal of what is unclaimed (CLOSING: the seller
 * may still claim the vouchers it holds during the delay), and a close after the delay finalizes it.
 * 409 INVALID_STATE while the deposit could still land or the delay runs.
 */
export async function closeChannel(agentId: AgentId, id: string) {
  const row = await read(agentChannel(agentId, id));
  if (row.status === "CLOSED") return channelView(row);
  const treasury = treasuryAccount();
  // Until its authorization is used (the deposit is in) or expired, the deposit may still land: the
  // hold stays, or the treasury's money could go out after the agent's was given back.
  const landed = await authorizationState(treasury.address, row.depositNonce as Hex);
  if (!landed && (await chainNowSeconds()) <= row.depositValidBefore) {
    throw new ApiError("INVALID_STATE", `the deposit's authorization can still be used until ${iso(Number(row.depositValidBefore) * 1000)}: try again after it`);
  }
  let state = await escrowState(row.channelId);
  let transaction: string | null = null;
  if (state.balance > state.claimed && row.status === "OPEN") {
    transaction = await askRefund(row);
    state = await escrowState(row.channelId);
  }
  if (state.balance > state.claimed) {
    const config = configOf(row, treasury.address);
    if (state.withdrawalStartedAt === 0n) {
      await initiateWithdraw(config, state.balance - state.claimed);
      state = await escrowState(row.channelId);
      const withdrawableAt = Number(state.withdrawalStartedAt + row.withdrawDelay) * 1000;
      const closing = await write(function* () {
        return yield* markClosing(yield* agentChannel(agentId, id, true), withdrawableAt);
      });
      return channelView(closing);
    }
    const due = state.withdrawalStartedAt + row.withdrawDelay;
    if ((await chainNowSeconds()) < due) {
      throw new ApiError("INVALID_STATE", `the treasury's withdrawal from the channel can be finalized from ${iso(Number(due) * 1000)}: close it again then`);
    }
    transaction = await finalizeWithdraw(config);
    state = await escrowState(row.channelId);
    if (state.balance > state.claimed) throw new ApiError("INVALID_STATE", "the channel still holds unclaimed money after the withdrawal: try again");
  }
  const closed = await write(function* () {
    const current = yield* agentChannel(agentId, id, true);
    return current.status === "CLOSED" ? current : yield* closeChannelRow(current, state.claimed, transaction);
  });
  return channelView(closed);
}

/**
 * The job: a CLOSING channel is finalized once its withdrawal delay has passed, and an OPEN channel
 * whose key is no longer in force starts closing (keys/commitments.ts: what a key left in escrow is
 * given back when it ends), both without its agent coming back. A close the chain does not let finish
 * yet (a deposit that can still land, the chain's clock behind ours: 409) waits for the next round.
 */
export async function closeDueChannels(): Promise<void> {
  const due = await read(select(x402Channels, "status = 'CLOSING' AND withdrawable_at <= ? ORDER BY withdrawable_at LIMIT 100", clock.nowMs()));
  for (const row of [...due, ...(await read(channelsOfEndedKeys(100)))]) {
    try {
      await closeChannel(row.agentId as AgentId, row.id);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
}
