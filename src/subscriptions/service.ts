// Recurring payments, each period charged exactly once: a charge is a payment plus a row keyed by
// (subscription, period) under a unique index, written in one write op with the cursor move, so a
// crash, a restart, overlapping job runs or a clock jump cannot charge a period twice.
import { findAgent } from "../agents/service";
import { ApiError, invalid, invalidState, notFound } from "../errors";
import { clock, iso } from "../clock";
import { FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { applyDue, type DueWork } from "../db/due";
import { uuid } from "../ids";
import { toMajor, toMinor, type Currency } from "../money";
import { NO_SANCTION, type Sanction } from "../outflows/check";
import { pay } from "../payments/service";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { periodStart, type Frequency } from "./periods";

export type SubscriptionRow = {
  id: string;
  payerId: string;
  recipientId: string;
  amount: bigint;
  currency: string;
  frequency: string;
  status: string;
  anchorAt: bigint;
  nextPeriod: bigint;
  failedAttempts: bigint;
  nextAttemptAt: bigint | null;
  nextChargeAt: bigint | null;
  lastError: string | null;
  cancelledAt: bigint | null;
  cancelReason: string | null;
  createdAt: bigint;
};

const COLUMNS = `id, payer_id AS payerId, recipient_id AS recipientId, amount, currency, frequency, status, anchor_at AS anchorAt,
  next_period AS nextPeriod, failed_attempts AS failedAttempts, next_attempt_at AS nextAttemptAt, next_charge_at AS nextChargeAt,
  last_error AS lastError,
  cancelled_at AS cancelledAt, cancel_reason AS cancelReason, created_at AS createdAt`;

const RETRY_MS = DAY_MS;
export const MAX_FAILED_ATTEMPTS = 3;
/** Bounds one job run for one subscription (a 10-year clock jump of a DAILY plan is 3,650 periods). */
const MAX_PERIODS_PER_RUN = 10_000;

const dueAt = (row: SubscriptionRow, period = Number(row.nextPeriod)) => periodStart(Number(row.anchorAt), row.frequency as Frequency, period);
/** When the next attempt is due: the next period's start, or the retry time while PAST_DUE. */
const attemptAt = (row: SubscriptionRow) => (row.status === "PAST_DUE" ? Number(row.nextAttemptAt!) : dueAt(row));
/**
 * The attempt a run read is still the one to make: no other run (job, read, overlapping job) has
 * charged the period or recorded this attempt's failure meanwhile. Makes both writes compare-and-set.
 */
const stillDue = (row: SubscriptionRow | null, period: number, at: number): row is SubscriptionRow =>
  row !== null && row.status !== "CANCELLED" && Number(row.nextPeriod) === period && attemptAt(row) === at;

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
    periodsCharged: Number(row.nextPeriod),
    nextChargeAt: row.status === "CANCELLED" ? null : iso(attemptAt(row)),
    failedAttempts: Number(row.failedAttempts),
    lastError: row.lastError,
    cancelledAt: row.cancelledAt === null ? null : iso(Number(row.cancelledAt)),
    cancelReason: row.cancelReason,
    createdAt: iso(Number(row.createdAt)),
  };
}

const find = (id: string) => get<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE id = ?`, id);
/** In a write op that moves the subscription on: the row, locked until the op commits (the compare-and-set holds across instances). */
const lock = (id: string) => get<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE id = ? ${FOR_UPDATE}`, id);

/** What the payer agreed to: the approval of a subscription held for the owner covers these terms. */
const termsOf = (row: SubscriptionRow) => ({ recipientId: row.recipientId, amount: toMajor(row.amount, row.currency as Currency), currency: row.currency, frequency: row.frequency });

/**
 * A write op: charges `period` of `row` (a payment with every rule of pay()) and moves the cursor.
 * The owner's approval amount applies when the subscription is made (`sanction` then is the
 * owner's grant, if it was held); every later charge stands on those terms, within the caps.
 */
function* charge(row: SubscriptionRow, period: number, sanction: Sanction = { standing: true }): Query<void> {
  const payment = yield* pay({
    fromAgentId: row.payerId,
    toAgentId: row.recipientId,
    amount: row.amount,
    currency: row.currency as Currency,
    reason: `subscription ${row.id}, period ${period + 1}`,
    metadata: { subscriptionId: row.id, period },
    kind: "SUBSCRIPTION",
    outflow: { kind: "SUBSCRIPTION", terms: termsOf(row) },
    sanction,
  });
  const now = clock.nowMs();
  yield* run(
    "INSERT INTO subscription_charges (id, subscription_id, period, payment_id, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    uuid(),
    row.id,
    period,
    payment.id,
    dueAt(row, period),
    now,
  );
  yield* run(
    "UPDATE subscriptions SET next_period = ?, status = ?, failed_attempts = ?, next_attempt_at = ?, next_charge_at = ?, last_error = ? WHERE id = ?",
    period + 1,
    "ACTIVE",
    0,
    null,
    dueAt(row, period + 1),
    null,
    row.id,
  );
  const amount = toMajor(row.amount, row.currency as Currency);
  const data = { subscriptionId: row.id, period, paymentId: payment.id, amount, currency: row.currency };
  yield* notifyFinancial(row.payerId, "subscription.charged", data, `Subscription charged: ${amount} ${row.currency}`);
  yield* notifyFinancial(row.recipientId, "subscription.charged", data, `Subscription payment received: ${amount} ${row.currency}`);
}

export function* createSubscription(payerId: string, body: { recipientId: string; amount: number; currency: Currency; frequency: Frequency }, sanction: Sanction = NO_SANCTION) {
  const amount = toMinor(body.amount, body.currency);
  const now = BigInt(clock.nowMs());
  const row: SubscriptionRow = {
    id: uuid(),
    payerId,
    recipientId: body.recipientId,
    amount,
    currency: body.currency,
    frequency: body.frequency,
    status: "ACTIVE",
    anchorAt: now,
    nextPeriod: 0n,
    failedAttempts: 0n,
    nextAttemptAt: null,
    nextChargeAt: now,
    lastError: null,
    cancelledAt: null,
    cancelReason: null,
    createdAt: now,
  };
  if (body.recipientId === payerId) throw invalid("you cannot subscribe to yourself");
  if (!(yield* findAgent(body.recipientId))) throw notFound("recipient agent");
  yield* run(
    `INSERT INTO subscriptions (id, payer_id, recipient_id, amount, currency, frequency, status, anchor_at, next_period, failed_attempts,
       next_attempt_at, next_charge_at, last_error, cancelled_at, cancel_reason, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.payerId,
    row.recipientId,
    row.amount,
    row.currency,
    row.frequency,
    row.status,
    row.anchorAt,
    row.nextPeriod,
    row.failedAttempts,
    row.nextAttemptAt,
    row.nextChargeAt,
    row.lastError,
    row.cancelledAt,
    row.cancelReason,
    row.createdAt,
  );
  // The first charge is taken now; pay() refuses a block, the tier limit, the owner's policy and
  // missing funds, and the whole op then rolls back, so nothing is created (above the owner's approval
  // amount, the subscription is held for the owner instead).
  yield* charge(row, 0, sanction);
  yield* notifyFinancial(row.recipientId, "subscription.created", { subscriptionId: row.id, payerId, amount: body.amount, currency: body.currency, frequency: body.frequency }, `New ${body.frequency.toLowerCase()} subscription: ${body.amount} ${body.currency}`);
  return subscriptionView((yield* find(row.id))!);
}

/** The subscription if `agentId` is one of its parties; anyone else gets 404 (existence not revealed). */
function* findAsParty(agentId: string, id: string, locked = false): Query<SubscriptionRow> {
  const row = yield* (locked ? lock(id) : find(id));
  if (!row || (row.payerId !== agentId && row.recipientId !== agentId)) throw notFound("subscription");
  return row;
}

/** Periods that came due before the cancel are owed: they are charged first, then it is cancelled. */
export async function cancelSubscription(agentId: string, id: string) {
  await read(findAsParty(agentId, id));
  await chargeDue(id);
  return write(() => cancel(agentId, id));
}

function* cancel(agentId: string, id: string) {
  const row = yield* findAsParty(agentId, id, true);
  if (row.status === "CANCELLED") throw invalidState("the subscription is already cancelled");
  const now = clock.nowMs();
  const reason = agentId === row.payerId ? "cancelled by the payer" : "cancelled by the recipient";
  yield* run("UPDATE subscriptions SET status = ?, next_charge_at = NULL, cancelled_at = ?, cancel_reason = ? WHERE id = ?", "CANCELLED", now, reason, id);
  const other = agentId === row.payerId ? row.recipientId : row.payerId;
  yield* notifyFinancial(other, "subscription.cancelled", { subscriptionId: id, by: agentId }, `Subscription ${id} ${reason}`);
  return subscriptionView((yield* find(id))!);
}

/** A write op: a failed charge moves the subscription to PAST_DUE, or CANCELLED after the third. */
function* recordFailure(id: string, period: number, at: number, error: ApiError): Query<void> {
  const row = yield* lock(id);
  if (!stillDue(row, period, at)) return;
  const failedAttempts = Number(row.failedAttempts) + 1;
  const cancelled = failedAttempts >= MAX_FAILED_ATTEMPTS;
  const retryAt = cancelled ? null : at + RETRY_MS;
  const sets = ["status = ?", "failed_attempts = ?", "next_attempt_at = ?", "next_charge_at = ?", "last_error = ?"];
  const params: unknown[] = [cancelled ? "CANCELLED" : "PAST_DUE", failedAttempts, retryAt, retryAt, `${error.code}: ${error.message}`];
  if (cancelled) {
    sets.push("cancelled_at = ?", "cancel_reason = ?");
    params.push(clock.nowMs(), `charge failed ${MAX_FAILED_ATTEMPTS} times`);
  }
  yield* run(`UPDATE subscriptions SET ${sets.join(", ")} WHERE id = ?`, ...params, id);
  const kind = cancelled ? "subscription.cancelled" : "subscription.charge_failed";
  const data = { subscriptionId: id, period, failedAttempts, error: error.code };
  const summary = cancelled ? `Subscription ${id} cancelled after ${failedAttempts} failed charges` : `Subscription charge failed (${error.code}); retried in 24 h`;
  yield* notifyFinancial(row.payerId, kind, data, summary);
  yield* notifyFinancial(row.recipientId, kind, data, summary);
}

/**
 * Charges every period of one subscription that is due at clock.nowMs(), each once; true if it made
 * an attempt. A row whose next_charge_at is earlier than its next attempt (a MONTHLY row migrated
 * with a lower bound) gets the exact time, so the job does not read it again before then.
 */
async function chargeDue(id: string): Promise<boolean> {
  let attempted = false;
  for (let step = 0; step < MAX_PERIODS_PER_RUN; step++) {
    const row = await read(find(id));
    if (!row || row.status === "CANCELLED") return attempted;
    const at = attemptAt(row);
    if (at > clock.nowMs()) {
      if (row.nextChargeAt !== BigInt(at)) await write(() => run("UPDATE subscriptions SET next_charge_at = ? WHERE id = ? AND next_period = ? AND status = ?", at, id, row.nextPeriod, row.status));
      return attempted;
    }
    attempted = true;
    const period = Number(row.nextPeriod);
    try {
      await write(function* () {
        const current = yield* lock(id);
        if (stillDue(current, period, at)) yield* charge(current, period);
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The failed op rolled back; the failure is recorded in an op of its own.
      await write(() => recordFailure(id, period, at, error));
    }
  }
  return attempted;
}

/** Only subscriptions whose next attempt is due are read (by the next_charge_at index), never every active one. */
const dueCharges: DueWork = { name: "subscriptions.charge", table: "subscriptions", where: "status IN ('ACTIVE', 'PAST_DUE')", dueColumn: "next_charge_at", apply: chargeDue };

/** The job: every subscription with something due. */
export const chargeDueSubscriptions = () => applyDue(dueCharges);

export async function getSubscription(agentId: string, id: string) {
  await read(findAsParty(agentId, id));
  await chargeDue(id);
  return subscriptionView((await read(find(id)))!);
}

export async function listSubscriptions(agentId: string, filter: { role?: "payer" | "recipient" }, window: PageWindow) {
  const scope = { where: "(payer_id = ? OR recipient_id = ?)", params: [agentId, agentId] };
  const narrow = filter.role ? { where: filter.role === "payer" ? "payer_id = ?" : "recipient_id = ?", params: [agentId] } : undefined;
  await applyDue(dueCharges, narrow ?? scope);
  return read(newestFirst({ table: "subscriptions", columns: COLUMNS, scope, narrow }, window, subscriptionView));
}
