// Recurring payments, each period charged exactly once: a charge is a payment plus a row keyed by
// (subscription, period) under a unique index, written in one write op with the cursor move, so a
// crash, a restart, overlapping job runs or a clock jump cannot charge a period twice.
import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { findAgent } from "../agents/service";
import { ApiError, invalid, invalidState, notFound } from "../errors";
import { clock, iso } from "../clock";
import { db, write } from "../db";
import { uuid } from "../ids";
import { toMajor, toMinor, type Currency } from "../money";
import { pay } from "../payments/service";
import { notifyFinancial } from "../webhooks/outbox";
import { periodStart, type Frequency } from "./periods";
import { subscriptionCharges, subscriptions } from "./schema";

export type SubscriptionRow = typeof subscriptions.$inferSelect;

const RETRY_MS = 86_400_000;
export const MAX_FAILED_ATTEMPTS = 3;
/** Bounds one job run for one subscription (a 10-year clock jump of a DAILY plan is 3,650 periods). */
const MAX_PERIODS_PER_RUN = 10_000;

const dueAt = (row: SubscriptionRow, period = row.nextPeriod) => periodStart(row.anchorAt, row.frequency as Frequency, period);
/** When the next attempt is due: the next period's start, or the retry time while PAST_DUE. */
const attemptAt = (row: SubscriptionRow) => (row.status === "PAST_DUE" ? row.nextAttemptAt! : dueAt(row));
/**
 * The attempt a run read is still the one to make: no other run (job, read, overlapping job) has
 * charged the period or recorded this attempt's failure meanwhile. Makes both writes compare-and-set.
 */
const stillDue = (row: SubscriptionRow | undefined, period: number, at: number): row is SubscriptionRow =>
  row !== undefined && row.status !== "CANCELLED" && row.nextPeriod === period && attemptAt(row) === at;

export function subscriptionView(row: SubscriptionRow) {
  const currency = row.currency as Currency;
  return {
    id: row.id,
    payerId: row.payerId,
    recipientId: row.recipientId,
    amount: toMajor(row.amount, currency),
    currency,
    frequency: row.frequency,
    status: row.status,
    periodsCharged: row.nextPeriod,
    nextChargeAt: row.status === "CANCELLED" ? null : iso(attemptAt(row)),
    failedAttempts: row.failedAttempts,
    lastError: row.lastError,
    cancelledAt: row.cancelledAt === null ? null : iso(row.cancelledAt),
    cancelReason: row.cancelReason,
    createdAt: iso(row.createdAt),
  };
}

const find = (id: string) => db.select().from(subscriptions).where(eq(subscriptions.id, id)).get();

/** Inside write(): charges `period` of `row` (a payment with every rule of pay()) and moves the cursor. */
function charge(row: SubscriptionRow, period: number): void {
  const payment = pay({
    fromAgentId: row.payerId,
    toAgentId: row.recipientId,
    amount: row.amount,
    currency: row.currency as Currency,
    reason: `subscription ${row.id}, period ${period + 1}`,
    metadata: { subscriptionId: row.id, period },
    kind: "SUBSCRIPTION",
  });
  const now = clock.nowMs();
  db.insert(subscriptionCharges).values({ id: uuid(), subscriptionId: row.id, period, paymentId: payment.id, dueAt: dueAt(row, period), createdAt: now }).run();
  db.update(subscriptions)
    .set({ nextPeriod: period + 1, status: "ACTIVE", failedAttempts: 0, nextAttemptAt: null, lastError: null })
    .where(eq(subscriptions.id, row.id))
    .run();
  const amount = toMajor(row.amount, row.currency as Currency);
  const data = { subscriptionId: row.id, period, paymentId: payment.id, amount, currency: row.currency };
  notifyFinancial(row.payerId, "subscription.charged", data, `Subscription charged: ${amount} ${row.currency}`);
  notifyFinancial(row.recipientId, "subscription.charged", data, `Subscription payment received: ${amount} ${row.currency}`);
}

export function createSubscription(payerId: string, body: { recipientId: string; amount: number; currency: Currency; frequency: Frequency }) {
  const amount = toMinor(body.amount, body.currency);
  const now = clock.nowMs();
  const row: SubscriptionRow = {
    id: uuid(),
    payerId,
    recipientId: body.recipientId,
    amount,
    currency: body.currency,
    frequency: body.frequency,
    status: "ACTIVE",
    anchorAt: now,
    nextPeriod: 0,
    failedAttempts: 0,
    nextAttemptAt: null,
    lastError: null,
    cancelledAt: null,
    cancelReason: null,
    createdAt: now,
  };
  if (body.recipientId === payerId) throw invalid("you cannot subscribe to yourself");
  if (!findAgent(body.recipientId)) throw notFound("recipient agent");
  db.insert(subscriptions).values(row).run();
  // The first charge is taken now; pay() refuses a block, the tier limit and missing funds, and the
  // whole op then rolls back, so nothing is created.
  charge(row, 0);
  notifyFinancial(row.recipientId, "subscription.created", { subscriptionId: row.id, payerId, amount: body.amount, currency: body.currency, frequency: body.frequency }, `New ${body.frequency.toLowerCase()} subscription: ${body.amount} ${body.currency}`);
  return subscriptionView(find(row.id)!);
}

/** The subscription if `agentId` is one of its parties; anyone else gets 404 (existence not revealed). */
function findAsParty(agentId: string, id: string): SubscriptionRow {
  const row = find(id);
  if (!row || (row.payerId !== agentId && row.recipientId !== agentId)) throw notFound("subscription");
  return row;
}

/** Periods that came due before the cancel are owed: they are charged first, then it is cancelled. */
export async function cancelSubscription(agentId: string, id: string) {
  findAsParty(agentId, id);
  await chargeDue(id);
  return write(() => cancel(agentId, id));
}

function cancel(agentId: string, id: string) {
  const row = findAsParty(agentId, id);
  if (row.status === "CANCELLED") throw invalidState("the subscription is already cancelled");
  const now = clock.nowMs();
  const reason = agentId === row.payerId ? "cancelled by the payer" : "cancelled by the recipient";
  db.update(subscriptions).set({ status: "CANCELLED", cancelledAt: now, cancelReason: reason }).where(eq(subscriptions.id, id)).run();
  const other = agentId === row.payerId ? row.recipientId : row.payerId;
  notifyFinancial(other, "subscription.cancelled", { subscriptionId: id, by: agentId }, `Subscription ${id} ${reason}`);
  return subscriptionView(find(id)!);
}

/** Inside write(): a failed charge moves the subscription to PAST_DUE, or CANCELLED after the third. */
function recordFailure(id: string, period: number, at: number, error: ApiError): void {
  const row = find(id);
  if (!stillDue(row, period, at)) return;
  const failedAttempts = row.failedAttempts + 1;
  const cancelled = failedAttempts >= MAX_FAILED_ATTEMPTS;
  db.update(subscriptions)
    .set({
      status: cancelled ? "CANCELLED" : "PAST_DUE",
      failedAttempts,
      nextAttemptAt: cancelled ? null : at + RETRY_MS,
      lastError: `${error.code}: ${error.message}`,
      ...(cancelled ? { cancelledAt: clock.nowMs(), cancelReason: `charge failed ${MAX_FAILED_ATTEMPTS} times` } : {}),
    })
    .where(eq(subscriptions.id, id))
    .run();
  const kind = cancelled ? "subscription.cancelled" : "subscription.charge_failed";
  const data = { subscriptionId: id, period, failedAttempts, error: error.code };
  const summary = cancelled ? `Subscription ${id} cancelled after ${failedAttempts} failed charges` : `Subscription charge failed (${error.code}); retried in 24 h`;
  notifyFinancial(row.payerId, kind, data, summary);
  notifyFinancial(row.recipientId, kind, data, summary);
}

/** Charges every period of one subscription that is due at clock.nowMs(), each once. */
export async function chargeDue(id: string): Promise<void> {
  for (let step = 0; step < MAX_PERIODS_PER_RUN; step++) {
    const row = find(id);
    if (!row || row.status === "CANCELLED") return;
    const at = attemptAt(row);
    if (at > clock.nowMs()) return;
    const period = row.nextPeriod;
    try {
      await write(() => {
        const current = find(id);
        if (stillDue(current, period, at)) charge(current, period);
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The failed op rolled back; the failure is recorded in an op of its own.
      await write(() => recordFailure(id, period, at, error));
    }
  }
}

/** The job: every subscription with something due. */
export async function chargeDueSubscriptions(): Promise<void> {
  const active = db.select().from(subscriptions).where(inArray(subscriptions.status, ["ACTIVE", "PAST_DUE"])).all();
  const now = clock.nowMs();
  for (const row of active) if (attemptAt(row) <= now) await chargeDue(row.id);
}

export async function getSubscription(agentId: string, id: string) {
  findAsParty(agentId, id);
  await chargeDue(id);
  return subscriptionView(find(id)!);
}

export async function listSubscriptions(agentId: string, filter: { role?: "payer" | "recipient"; limit: number; offset: number }) {
  const mine: SQL =
    filter.role === "payer"
      ? eq(subscriptions.payerId, agentId)
      : filter.role === "recipient"
        ? eq(subscriptions.recipientId, agentId)
        : or(eq(subscriptions.payerId, agentId), eq(subscriptions.recipientId, agentId))!;
  const due = db.select({ id: subscriptions.id }).from(subscriptions).where(and(mine, inArray(subscriptions.status, ["ACTIVE", "PAST_DUE"]))).all();
  for (const { id } of due) await chargeDue(id);
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(subscriptions).where(mine).get()!.n;
  const rows = db.select().from(subscriptions).where(mine).orderBy(desc(subscriptions.createdAt), desc(subscriptions.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(subscriptionView), total };
}

