// The one check of every outflow an agent starts (payments, x402, bets, loan offers, borrowing,
// contracts, subscriptions, bookings, withdrawals): the brakes (a frozen agent sends nothing), the
// reputation tier's limit, then the owner's policy — the counterparty allowlist, the per-transaction cap, the 24 h cap, and the approval amount,
// above which the outflow is held for the owner instead of made. A path that moves an agent's money
// out calls authorizeOutflow() in its write op before the movement; there is no other way to the tier
// check. test/money-paths.test.ts lists every movement of money and what checked it.
import { assertNotFrozen } from "../agents/freeze";
import { findAgent, lockAgents } from "../agents/service";
import { type Op } from "../db";
import { Deferred } from "../door/deferred";
import { ApiError, type ErrorCode } from "../errors";
import { ownProperty } from "../json";
import { chargeActingKey, KEY_SPEND_ERRORS } from "./budget";
import { toMajor } from "../money";
import { assertWithinTier } from "../agents/tiers";
import { holdOutflow, takeGrant, type Grant, type Outflow } from "./approvals";
import { parsePolicy, type Policy } from "./policy";
import { countOutflow, spentInWindow } from "./usage";

export type { Grant, Outflow, OutflowKind } from "./approvals";

/** What authorizeOutflow answers, for every route whose command starts an outflow (their documentation). */
export const OUTFLOW_ERRORS = ["AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "POLICY_LIMIT_EXCEEDED", ...KEY_SPEND_ERRORS] as const satisfies readonly ErrorCode[];


/** How the outflow was sanctioned beyond the policy's automatic limits. */
export type Sanction = {
  /** The owner approved this exact request (it was held; its amount is counted already). */
  grant?: Grant;
  /** A subscription charge: its terms were accepted, or approved, when the subscription was made. */
  standing?: boolean;
};

/**
 * No sanction: the outflow passes the policy's automatic limits or waits for the owner. Frozen and
 * without a prototype, and a sanction is read by own property only, so nothing inherited (a polluted
 * Object.prototype) can ever stand for a grant or a standing acceptance.
 */
export const NO_SANCTION: Sanction = Object.freeze(Object.create(null));

const WHAT: Record<Outflow["kind"], string> = {
  PAYMENT: "a payment",
  X402: "an x402 payment",
  BET: "an open bet (anyone may accept it)",
  BET_ACCEPT: "a bet",
  LOAN_OFFER: "an open loan offer (anyone may borrow)",
  LOAN_BORROW: "a loan (what you will owe the lender: principal plus interest)",
  CONTRACT: "a contract's escrow",
  SUBSCRIPTION: "a subscription",
  BOOKING: "a booking",
  WITHDRAWAL: "a withdrawal to an address outside the service",
};

function assertCounterparty(policy: Policy, outflow: Outflow): void {
  if (policy.allowlist === null) return;
  if (outflow.counterpartyId === null) {
    throw new ApiError("COUNTERPARTY_NOT_ALLOWED", `your owner allows outflows only to the agents on its allowlist, and ${WHAT[outflow.kind]} has no listed counterparty`, {
      details: { counterpartyId: null, allowlistSize: policy.allowlist.length },
    });
  }
  if (!policy.allowlist.includes(outflow.counterpartyId)) {
    throw new ApiError("COUNTERPARTY_NOT_ALLOWED", `your owner allows outflows only to the agents on its allowlist; ${outflow.counterpartyId} is not on it`, {
      details: { counterpartyId: outflow.counterpartyId, allowlistSize: policy.allowlist.length },
    });
  }
}

function assertPerTransaction(policy: Policy, outflow: Outflow): void {
  const limit = policy.perTransaction[outflow.currency];
  if (limit === undefined || outflow.amount <= limit) return;
  const { currency } = outflow;
  throw new ApiError("POLICY_LIMIT_EXCEEDED", `${toMajor(outflow.amount, currency)} ${currency} is above your owner's limit of ${toMajor(limit, currency)} ${currency} per transaction`, {
    details: { currency, window: "transaction", limit: toMajor(limit, currency), amount: toMajor(outflow.amount, currency) },
  });
}

/** The 24 h cap. The agent's row is locked first, so concurrent outflows of one agent (on any instance) are counted one after the other. */
function* assertDaily(policy: Policy, outflow: Outflow): Op<void> {
  const limit = policy.daily[outflow.currency];
  if (limit === undefined) return;
  yield* lockAgents([outflow.agentId]);
  const spent = yield* spentInWindow(outflow.agentId, outflow.currency);
  if (spent + outflow.amount <= limit) return;
  const { currency } = outflow;
  const left = limit > spent ? limit - spent : 0n;
  throw new ApiError(
    "POLICY_LIMIT_EXCEEDED",
    `${toMajor(outflow.amount, currency)} ${currency} is above what your owner's limit of ${toMajor(limit, currency)} ${currency} per 24 h leaves: ${toMajor(left, currency)} ${currency} (${toMajor(spent, currency)} ${currency} went out in the last 24 h)`,
    { details: { currency, window: "24h", limit: toMajor(limit, currency), spent: toMajor(spent, currency), remaining: toMajor(left, currency), amount: toMajor(outflow.amount, currency) } },
  );
}

const needsApproval = (policy: Policy, outflow: Outflow) => {
  const above = policy.approvalAbove[outflow.currency];
  return above !== undefined && outflow.amount > above;
};

/**
 * The brakes, the tier, the allowlist and the caps, and the acting key's chain (in force, allowlist);
 * `daily`: the 24 h cap and the key's budgets too (not for a granted outflow: counted when it was held).
 * Returns the policy (null: none).
 */
function* checkLimits(outflow: Outflow, daily: boolean): Op<Policy | null> {
  const agent = (yield* findAgent(outflow.agentId))!;
  // Frozen first: an owner's or the operator's brake refuses whatever the limits would say.
  assertNotFrozen(agent);
  assertWithinTier(Number(agent.score), outflow.amount, outflow.currency);
  const policy = parsePolicy(agent.policy);
  if (policy) {
    assertCounterparty(policy, outflow);
    assertPerTransaction(policy, outflow);
    if (daily) yield* assertDaily(policy, outflow);
  }
  yield* chargeActingKey(outflow, !daily);
  return policy;
}

/**
 * In the write op of an outflow, before its money moves. Throws AGENT_FROZEN, TIER_LIMIT_EXCEEDED,
 * COUNTERPARTY_NOT_ALLOWED or POLICY_LIMIT_EXCEEDED, and for a restricted key KEY_INACTIVE,
 * KEY_SCOPE_DENIED or KEY_BUDGET_EXCEEDED; throws Deferred (202, the outflow held for the owner) above
 * the approval amount; otherwise counts the outflow in the agent's 24 h usage.
 */
export function* authorizeOutflow(outflow: Outflow, sanction: Sanction = NO_SANCTION): Op<void> {
  const grant = ownProperty(sanction, "grant");
  if (grant) {
    // Limits are checked again as it goes out (an owner who tightened the policy meanwhile is obeyed),
    // but not the 24 h cap: the amount was counted when it was held.
    yield* checkLimits(outflow, false);
    yield* takeGrant(outflow, grant);
    return;
  }
  const policy = yield* checkLimits(outflow, true);
  if (policy && ownProperty(sanction, "standing") !== true && needsApproval(policy, outflow)) throw new Deferred(202, () => holdForApproval(outflow));
  yield* countOutflow(outflow.agentId, outflow.currency, outflow.amount);
}

/** The op that replaces a deferred outflow: the same checks once more (in this transaction), then the hold. */
function* holdForApproval(outflow: Outflow) {
  yield* checkLimits(outflow, true);
  return yield* holdOutflow(outflow);
}
