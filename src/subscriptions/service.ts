// Recurring payments, each period charged exactly once: a charge is a payment plus a row keyed by
// (subscription, period) under a unique index, written in one write op with the cursor move, so a
// crash, a restart, overlapping job runs or a clock jump cannot charge a period twice. A subscription
// made with a restricted key is charged as that key: each charge counts against the key's budgets, and
// once the key (or one it was made from) is revoked or expired the next charge is refused and the
// subscription is cancelled (keys/commitments.ts). While the payer is frozen its charges pause: no
// attempt, no failure, no notice; once unfrozen every period missed is charged, each once, as after
// downtime.
import { committingKeyId } from "../keys/service";
import { assertNotFrozen, notFrozenSql } from "../agents/freeze";
import { findAgent } from "../agents/service";
import { ApiError, invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { clock, iso } from "../clock";
import { actingAs, find, insert, newestFirst, read, run, update, write, type PageWindow, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { type AgentId, uuid } from "../ids";
import { toMajor, toMinor, type Currency } from "../money";
import { NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { pay } from "../payments/service";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { periodStart, type Frequency } from "./periods";
import { subscriptionCharges, subscriptions } from "./schema";

type Subscription = Row<typeof subscriptions>;

const RETRY_MS = DAY_MS;
export const MAX_FAILED_ATTEMPTS = 3;
/** Bounds one job run for one subscription (a 10-year clock jump of a DAILY plan is 3,650 periods). */
const MAX_PERIODS_PER_RUN = 10_000;

const dueAt = (row: Subscription, period = Number(row.nextPeriod)) => periodStart(Number(row.anchorAt), row.frequency, period);
/** When the next attempt is due: the next period's start, or the retry time while PAST_DUE. */
const attemptAt = (row: Subscription) => (row.status === "PAST_DUE" ? Number(row.nextAttemptAt!) : dueAt(row));
/**
 * The attempt a run read is still the one to make: no other run (job, read, overlapping job) has
 * charged the period or recorded this attempt's failure meanwhile. Makes both writes compare-and-set.
 */
const stillDue = (row: Subscription | null, period: number, at: number): row is Subscription =>
  row !== null && row.status !== "CANCELLED" && Number(row.nextPeriod) === period && attemptAt(row) === at;

export function subscriptionView(row: Subscription) {
  const currency = row.currency;
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

/** What the payer agreed to: the approval of a subscription held for the owner covers these terms. */
const termsOf = (row: Subscription) => ({ recipientId: row.recipientId, amount: toMajor(row.amount, row.currency), currency: row.currency, frequency: row.frequency });

/**
 * A write op: charges `period` of `row` (a payment with every rule of pay()) and moves the cursor.
 * The owner's approval amount applies when the subscription is made (`sanction` then is the
 * owner's grant, if it was held); every later charge stands on those terms, within the caps.
 */
function* charge(row: Subscription, period: number, sanction: Sanction = { standing: true }): Op<void> {
  const payment = yield* pay({
    fromAgentId: row.payerId,
    toAgentId: row.recipientId,
    amount: row.amount,
    currency: row.currency,
    reason: `subscription ${row.id}, period ${period + 1}`,
    metadata: { subscriptionId: row.id, period },
    kind: "SUBSCRIPTION",
    outflow: { kind: "SUBSCRIPTION", terms: termsOf(row) },
    sanction,
  });
  const now = clock.nowMs();
  yield* insert(subscriptionCharges, { id: uuid(), subscriptionId: row.id, period, paymentId: payment.id, dueAt: dueAt(row, period), createdAt: now });
  yield* update(subscriptions, row.id, { nextPeriod: period + 1, status: "ACTIVE", failedAttempts: 0, nextAttemptAt: null, nextChargeAt: dueAt(row, period + 1), lastError: null });
  const amount = toMajor(row.amount, row.currency);
  const data = { subscriptionId: row.id, period, paymentId: payment.id, amount, currency: row.currency };
  yield* notifyFinancial(row.payerId, "subscription.charged", data, `Subscription charged: ${amount} ${row.currency}`);
  yield* notifyFinancial(row.recipientId, "subscription.charged", data, `Subscription payment received: ${amount} ${row.currency}`);
}

/** What createSubscription answers: the recipient unknown (or the payer itself, or blocking it), short of the first charge, or refused by the outflow check. */
export const CREATE_SUBSCRIPTION_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* createSubscription(payerId: AgentId, body: { recipientId: AgentId; amount: number; currency: Currency; frequency: Frequency }, sanction: Sanction = NO_SANCTION) {
  const amount = toMinor(body.amount, body.currency);
  if (body.recipientId === payerId) throw invalid("you cannot subscribe to yourself");
  if (!(yield* findAgent(body.recipientId))) throw notFound("recipient agent");
  const now = clock.nowMs();
  const row = yield* insert(subscriptions, {
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
    nextChargeAt: now,
    keyId: yield* committingKeyId(),
    createdAt: now,
  });
  // The first charge is taken now; pay() refuses a block, the tier limit, the owner's policy and
  // missing funds, and the whole op then rolls back, so nothing is created (above the owner's approval
  // amount, the subscription is held for the owner instead).
  yield* charge(row, 0, sanction);
  yield* notifyFinancial(row.recipientId, "subscription.created", { subscriptionId: row.id, payerId, amount: body.amount, currency: body.currency, frequency: body.frequency }, `New ${body.frequency.toLowerCase()} subscription: ${body.amount} ${body.currency}`);
  return subscriptionView((yield* find(subscriptions, row.id))!);
}

/** The subscription if `agentId` is one of its parties; anyone else gets 404 (existence not revealed). */
function* findAsParty(agentId: AgentId, id: string, locked = false): Op<Subscription> {
  const row = yield* find(subscriptions, id, locked);
  if (!row || (row.payerId !== agentId && row.recipientId !== agentId)) throw notFound("subscription");
  return row;
}

/**
 * Periods that came due before the cancel are owed: the route charges them first (applySubscriptionDue),
 * then it is cancelled. A frozen payer's due periods are not charged (the charges are paused): cancelled
 * meanwhile, they never are.
 */
export function* cancelSubscription(agentId: AgentId, id: string) {
  const row = yield* findAsParty(agentId, id, true);
  if (row.status === "CANCELLED") throw invalidState("the subscription is already cancelled");
  const now = clock.nowMs();
  const reason = agentId === row.payerId ? "cancelled by the payer" : "cancelled by the recipient";
  const cancelled = yield* update(subscriptions, id, { status: "CANCELLED", nextChargeAt: null, cancelledAt: now, cancelReason: reason });
  const other = agentId === row.payerId ? row.recipientId : row.payerId;
  yield* notifyFinancial(other, "subscription.cancelled", { subscriptionId: id, by: agentId }, `Subscription ${id} ${reason}`);
  return subscriptionView(cancelled);
}

/**
 * A write op: a failed charge moves the subscription to PAST_DUE, or CANCELLED after the third — at
 * once when the key that made it is no longer in force (it never will be again).
 */
function* recordFailure(id: string, period: number, at: number, error: ApiError): Op<void> {
  const row = yield* find(subscriptions, id, true);
  if (!stillDue(row, period, at)) return;
  const failedAttempts = Number(row.failedAttempts) + 1;
  const keyEnded = error.code === "KEY_INACTIVE";
  const cancelled = keyEnded || failedAttempts >= MAX_FAILED_ATTEMPTS;
  const retryAt = cancelled ? null : at + RETRY_MS;
  yield* update(subscriptions, id, {
    status: cancelled ? "CANCELLED" : "PAST_DUE",
    failedAttempts,
    nextAttemptAt: retryAt,
    nextChargeAt: retryAt,
    lastError: `${error.code}: ${error.message}`,
    ...(cancelled ? { cancelledAt: clock.nowMs(), cancelReason: keyEnded ? "the restricted key that made it was revoked or expired" : `charge failed ${MAX_FAILED_ATTEMPTS} times` } : {}),
  });
  const kind = cancelled ? "subscription.cancelled" : "subscription.charge_failed";
  const data = { subscriptionId: id, period, failedAttempts, error: error.code };
  const why = keyEnded ? "the key that made it was revoked or expired" : `after ${failedAttempts} failed charges`;
  const summary = cancelled ? `Subscription ${id} cancelled: ${why}` : `Subscription charge failed (${error.code}); retried in 24 h`;
  yield* notifyFinancial(row.payerId, kind, data, summary);
  yield* notifyFinancial(row.recipientId, kind, data, summary);
}

/**
 * A write op: charges `period` unless another run has charged it or recorded this attempt meanwhile.
 * A frozen payer is refused (AGENT_FROZEN) before anything else could fail the attempt.
 */
function* chargeIfStillDue(id: string, period: number, at: number): Op<void> {
  const current = yield* find(subscriptions, id, true);
  if (!stillDue(current, period, at)) return;
  assertNotFrozen((yield* findAgent(current.payerId))!);
  yield* charge(current, period);
}

/**
 * Charges every period of one subscription that is due at clock.nowMs(), each once; true if it made
 * an attempt. A row whose next_charge_at is earlier than its next attempt (a MONTHLY row migrated
 * with a lower bound) gets the exact time, so the job does not read it again before then.
 */
async function chargeDue(id: string): Promise<boolean> {
  let attempted = false;
  for (let step = 0; step < MAX_PERIODS_PER_RUN; step++) {
    const row = await read(find(subscriptions, id));
    if (!row || row.status === "CANCELLED") return attempted;
    const at = attemptAt(row);
    if (at > clock.nowMs()) {
      if (row.nextChargeAt !== BigInt(at)) await write(() => run("UPDATE subscriptions SET next_charge_at = ? WHERE id = ? AND next_period = ? AND status = ?", at, id, row.nextPeriod, row.status));
      return attempted;
    }
    const period = Number(row.nextPeriod);
    try {
      // As the key that made it: its chain in force and its budgets, checked in the charge's own write.
      await write(() => actingAs(row.keyId, chargeIfStillDue(id, period, at)));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Paused, not failed: the payer is frozen. The op rolled back; the period waits for the unfreeze.
      if (error.code === "AGENT_FROZEN") return attempted;
      // The failed op rolled back; the failure is recorded in an op of its own.
      await write(() => recordFailure(id, period, at, error));
    }
    attempted = true;
  }
  return attempted;
}

/**
 * Only subscriptions whose next attempt is due are read (by the next_charge_at index), never every
 * active one, and not those of a frozen payer: paused, they would be read again at every run.
 */
const dueCharges: DueWork = {
  name: "subscriptions.charge",
  table: "subscriptions",
  where: `status IN ('ACTIVE', 'PAST_DUE') AND ${notFrozenSql("subscriptions.payer_id")}`,
  dueColumn: "next_charge_at",
  applyAcross: chargeDue,
};

/** The job: every subscription with something due. */
export const chargeDueSubscriptions = () => applyDue(dueCharges);

/** Before an action on one subscription, or a read of it: the periods due charged (each in its own write). */
export const applySubscriptionDue = (id: string) => applyIfDue(dueCharges, id);

const partyScope = (agentId: AgentId) => ({ where: "(payer_id = ? OR recipient_id = ?)", params: [agentId, agentId] });

/** Before the caller's subscriptions are listed: their due periods charged. */
export const chargeDueOf = (agentId: AgentId) => applyDue(dueCharges, partyScope(agentId));

/** A subscription the caller pays or receives (the route charges its due periods first); 404 for anyone else. */
export function* getSubscription(agentId: AgentId, id: string) {
  return subscriptionView(yield* findAsParty(agentId, id));
}

/** The caller's subscriptions (the route charges their due periods first). */
export function* listSubscriptions(agentId: AgentId, filter: { role?: "payer" | "recipient" }, window: PageWindow) {
  const narrow = filter.role ? { where: filter.role === "payer" ? "payer_id = ?" : "recipient_id = ?", params: [agentId] } : undefined;
  return yield* newestFirst({ table: subscriptions, scope: partyScope(agentId), narrow }, window, subscriptionView);
}
