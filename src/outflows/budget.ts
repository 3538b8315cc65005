// A restricted key's limits on money going out, checked in authorizeOutflow beside the tier and the
// owner's policy, and on a release (authorizeRelease, release.ts): the key and every key it was made from in force
// (keys/service.ts chainInForce, inside the write), each one's counterparty allowlist, its budget per
// transaction, and its total budget over its life. A key with any budget spends only the currencies it
// has a budget in (fails closed). The total is counted by one conditional UPDATE per key (`spent +
// amount <= total`), so concurrent outflows of one key, on either engine and any instance, can never
// together pass it: each sees the others' counts or waits for their row lock.
import { actingKey, run, select, type Op } from "../db";
import { ApiError, type ErrorCode } from "../errors";
import { toMajor, type Currency } from "../money";
import type { Outflow } from "./approvals";
import { keySpending } from "../keys/schema";
import { allowlistOf, budgetsOf, chainInForce, type KeyRow } from "../keys/service";
import { type AgentId } from "../ids";

/** What a restricted key's limits answer money going out: the key (or one it was made from) ended, the counterparty off its allowlist, a budget passed. */
export const KEY_SPEND_ERRORS = ["KEY_INACTIVE", "KEY_SCOPE_DENIED", "KEY_BUDGET_EXCEEDED"] as const satisfies readonly ErrorCode[];

/** What a key's limits look at in money going out: how much, in what, to whom (null: nobody named yet, or outside the service). */
export type Spend = { amount: bigint; currency: Currency; counterpartyId: AgentId | null };

function assertAllowed(key: KeyRow, spend: Spend): void {
  const allowlist = allowlistOf(key);
  if (allowlist === null || (spend.counterpartyId !== null && allowlist.includes(spend.counterpartyId))) return;
  throw new ApiError("KEY_SCOPE_DENIED", `this key pays only the agents on its allowlist; ${spend.counterpartyId ?? "an outflow without a named counterparty"} is not on it`, {
    details: { keyId: key.id, counterpartyId: spend.counterpartyId, allowlist },
  });
}

/** Adds the spend to the key's count; throws KEY_BUDGET_EXCEEDED, naming what is left, if it would pass a budget. */
function* count(key: KeyRow, spend: Spend): Op<void> {
  const { currency, amount } = spend;
  const budgets = budgetsOf(key);
  const budget = budgets[currency];
  const budgeted = Object.keys(budgets);
  if (!budget && budgeted.length > 0) {
    throw new ApiError("KEY_BUDGET_EXCEEDED", `this key has a budget only in ${budgeted.join(", ")}: it may not spend ${currency}`, {
      details: { keyId: key.id, currency, window: "currency", budgetCurrencies: budgeted },
    });
  }
  if (budget?.perTransaction !== undefined && amount > budget.perTransaction) {
    throw new ApiError("KEY_BUDGET_EXCEEDED", `${toMajor(amount, currency)} ${currency} is above this key's budget of ${toMajor(budget.perTransaction, currency)} ${currency} per transaction`, {
      details: { keyId: key.id, currency, window: "transaction", limit: toMajor(budget.perTransaction, currency), amount: toMajor(amount, currency) },
    });
  }
  yield* run("INSERT INTO key_spending (key_id, currency, spent) VALUES (?, ?, 0) ON CONFLICT (key_id, currency) DO NOTHING", key.id, currency);
  const total = budget?.total;
  if (total === undefined) {
    yield* run("UPDATE key_spending SET spent = spent + ? WHERE key_id = ? AND currency = ?", amount, key.id, currency);
    return;
  }
  if ((yield* run("UPDATE key_spending SET spent = spent + ? WHERE key_id = ? AND currency = ? AND spent + ? <= ?", amount, key.id, currency, amount, total)) === 1) return;
  const { spent } = (yield* select(keySpending, "key_id = ? AND currency = ?", key.id, currency))[0]!;
  const left = total > spent ? total - spent : 0n;
  throw new ApiError(
    "KEY_BUDGET_EXCEEDED",
    `${toMajor(amount, currency)} ${currency} is above what this key's budget of ${toMajor(total, currency)} ${currency} has left: ${toMajor(left, currency)} ${currency}`,
    { details: { keyId: key.id, currency, window: "total", limit: toMajor(total, currency), spent: toMajor(spent, currency), remaining: toMajor(left, currency), amount: toMajor(amount, currency) } },
  );
}

/** Key `keyId`'s chain in force (403 KEY_INACTIVE), each key's allowlist, and, when `counted` is false, each key's budgets. */
export function* chargeKey(keyId: string, spend: Spend, counted: boolean): Op<void> {
  for (const key of yield* chainInForce(keyId)) {
    assertAllowed(key, spend);
    if (!counted) yield* count(key, spend);
  }
}

/**
 * In authorizeOutflow: nothing for the agent key; for the acting restricted key, its chain in force and
 * its allowlist, and its budgets unless the outflow was `counted` when it was held for the owner.
 */
export function* chargeActingKey(outflow: Outflow, counted = false): Op<void> {
  const keyId = yield* actingKey();
  if (keyId !== null) yield* chargeKey(keyId, outflow, counted);
}
