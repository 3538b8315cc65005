// The treasury's gas for settlements, bounded per UTC day: for each seller by its tier, a share of
// X402_FACILITATOR_GAS_PER_DAY (a new agent is UNRATED: a tenth, so a fresh registration never gets a
// full budget), and for every seller together by X402_FACILITATOR_GAS_PER_DAY_TOTAL. What a day spent
// is the gas of the sales claimed on it (x402_sales.gas: the settlement's gas limit reserved from the claim, the real
// use once mined, 0 once failed unsent), so budgets free up as settlements are mined.
//
// A claim first updates the day's row in x402_gas_days and keeps its lock to the commit: every claim of
// the day, on any instance, then sums the day's gas after the claims before it committed (PostgreSQL
// reads committed rows per statement), so two claims can never both take the last room of a budget.
import { tierOf, type Tier } from "../../agents/tiers";
import { clock } from "../../clock";
import { config } from "../../config";
import { get, run, type Op } from "../../db";
import { DAY_MS } from "../../time";
import { refuse, type Refusal } from "./schemes";
import { type AgentId } from "../../ids";

/** A seller's share of X402_FACILITATOR_GAS_PER_DAY by its tier, in percent: an UNRATED one the smallest. */
export const GAS_SHARE_PERCENT: Record<Tier, bigint> = { UNRATED: 10n, BRONZE: 25n, SILVER: 50n, GOLD: 100n, PLATINUM: 100n };

const dayGas = (where: string, ...params: unknown[]) => get<{ gas: bigint | null }>(`SELECT CAST(SUM(gas) AS BIGINT) AS gas FROM x402_sales WHERE ${where}`, ...params);

/** The first ms of the current UTC day (service clock). */
export const gasDayStart = (now = clock.nowMs()) => now - (now % DAY_MS);

/** The gas every seller's settlements took since `dayStart` (reserved while unmined): the day's sales, by their index on created_at. */
export function* gasSpentSince(dayStart: number): Op<bigint> {
  return (yield* dayGas("created_at >= ?", dayStart))!.gas ?? 0n;
}

const capReached = (budget: string) => refuse("facilitator_gas_cap_reached", `the treasury's gas for ${budget} today is spent; retry after 00:00 UTC`);

/**
 * A write op, first in a claim: takes the day's lock (to the commit) and answers the day's first ms.
 * Whatever the claim reads after it includes every claim committed before.
 */
export function* lockGasDay(): Op<number> {
  const dayStart = gasDayStart();
  yield* run("INSERT INTO x402_gas_days (day, claims) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET claims = x402_gas_days.claims + 1", dayStart);
  return dayStart;
}

/**
 * A write op, in a claim holding the day's lock (`dayStart`), before its sale is inserted: a refusal if
 * one more settlement (its gas limit `gas`) would pass the seller's budget or the day's total; null if it fits.
 */
export function* checkGasBudgets(agentId: AgentId, dayStart: number, gas: bigint): Op<Refusal | null> {
  const { score } = (yield* get<{ score: bigint }>("SELECT score FROM agents WHERE id = ?", agentId))!;
  const { tier } = tierOf(Number(score));
  const sellerCap = (BigInt(config.x402FacilitatorGasPerDay) * GAS_SHARE_PERCENT[tier]) / 100n;
  const seller = (yield* dayGas("agent_id = ? AND created_at >= ?", agentId, dayStart))!.gas ?? 0n;
  if (seller + gas > sellerCap) {
    return capReached(`your settlements (${tier}: ${GAS_SHARE_PERCENT[tier]}% of X402_FACILITATOR_GAS_PER_DAY = ${sellerCap} gas)`);
  }
  const all = yield* gasSpentSince(dayStart);
  if (all + gas > BigInt(config.x402FacilitatorGasPerDayTotal)) {
    return capReached(`every seller's settlements (X402_FACILITATOR_GAS_PER_DAY_TOTAL = ${config.x402FacilitatorGasPerDayTotal} gas)`);
  }
  return null;
}
