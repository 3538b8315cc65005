// What each agent's outflows add up to, per currency, in 10-minute buckets: the window of the owner's
// 24 h cap. An outflow counts in the bucket of its time; the window is every bucket that overlaps the
// last 24 h, so it spans 24 h to 24 h 10 min: a cap is never exceeded within any 24 h (it may hold an
// outflow back up to 10 minutes longer than a to-the-millisecond window would).
import { clock } from "../clock";
import { get, run, runLater, type Op } from "../db";
import type { Currency } from "../money";
import { DAY_MS, MINUTE_MS } from "../time";
import { type AgentId } from "../ids";

const BUCKET_MS = 10 * MINUTE_MS;

export const currentBucket = () => Math.floor(clock.nowMs() / BUCKET_MS);
const firstBucketInWindow = () => Math.floor((clock.nowMs() - DAY_MS) / BUCKET_MS);

/** Adds an outflow to its agent's current bucket (an atomic upsert: concurrent outflows all count). */
export function* countOutflow(agentId: AgentId, currency: Currency, amount: bigint): Op<void> {
  yield* runLater(
    `INSERT INTO outflow_usage (bucket, agent_id, currency, amount) VALUES (?, ?, ?, ?)
     ON CONFLICT (bucket, agent_id, currency) DO UPDATE SET amount = outflow_usage.amount + excluded.amount`,
    currentBucket(),
    agentId,
    currency,
    amount,
  );
}

/** Takes back what was counted for an outflow that never went out (a declined or expired approval). */
export function* uncountOutflow(agentId: AgentId, currency: Currency, amount: bigint, bucket: number): Op<void> {
  yield* run("UPDATE outflow_usage SET amount = amount - ? WHERE bucket = ? AND agent_id = ? AND currency = ?", amount, bucket, agentId, currency);
}

/** The SUM over a window of `count` buckets: one text per count (the window holds 145 or 146), made once. */
const windowSums = new Map<number, string>();
function windowSum(count: number): string {
  let sql = windowSums.get(count);
  if (sql === undefined) {
    sql = `SELECT CAST(SUM(amount) AS BIGINT) AS spent FROM outflow_usage WHERE bucket IN (${Array.from({ length: count }, () => "?").join(", ")}) AND agent_id = ? AND currency = ?`;
    windowSums.set(count, sql);
  }
  return sql;
}

/** The agent's outflows in the window: each of its buckets looked up by key. */
export function* spentInWindow(agentId: AgentId, currency: Currency): Op<bigint> {
  const buckets: number[] = [];
  for (let bucket = firstBucketInWindow(); bucket <= currentBucket(); bucket++) buckets.push(bucket);
  const row = yield* get<{ spent: bigint | null }>(windowSum(buckets.length), ...buckets, agentId, currency);
  return row?.spent ?? 0n;
}

/** A job's write op: drops buckets that left every window. */
export function* purgeOldUsage(): Op<void> {
  yield* run("DELETE FROM outflow_usage WHERE bucket < ?", firstBucketInWindow() - 1);
}
