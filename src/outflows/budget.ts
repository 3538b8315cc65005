// A restricted key's limits on an outflow, checked in authorizeOutflow beside the tier and the owner's
// policy: the key's counterparty allowlist, its budget per transaction, and its total budget over its
// life — for the key and every key it was made from. The total is counted by one conditional UPDATE per
// key (`spent + amount <= total`), so concurrent outflows of one key, on either engine and any instance,
// can never together pass it: each sees the others' counts or waits for their row lock.
import { actingKey, run, select, type Query } from "../db";
import { ApiError } from "../errors";
import { toMajor } from "../money";
import type { Outflow } from "./approvals";
import { keySpending } from "../keys/schema";
import { allowlistOf, budgetsOf, keyChain, type KeyRow } from "../keys/service";

function assertAllowed(key: KeyRow, outflow: Outflow): void {
  const allowlist = allowlistOf(key);
  if (allowlist === null || (outflow.counterpartyId !== null && allowlist.includes(outflow.counterpartyId))) return;
  throw new ApiError("KEY_SCOPE_DENIED", `this key pays only the agents on its allowlist; ${outflow.counterpartyId ?? "an outflow without a named counterparty"} is not on it`, {
    details: { keyId: key.id, counterpartyId: outflow.counterpartyId, allowlist },
  });
}

/** Adds the outflow to the key's count; throws KEY_BUDGET_EXCEEDED, naming what is left, if it would pass a budget. */
function* spend(key: KeyRow, outflow: Outflow): Query<void> {
  const { currency, amount } = outflow;
  const budget = budgetsOf(key)[currency];
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

/** In authorizeOutflow, when the outflow is counted: nothing for the agent key, the key's limits for a restricted key. */
export function* chargeActingKey(outflow: Outflow): Query<void> {
  const keyId = yield* actingKey();
  if (keyId === null) return;
  for (const key of yield* keyChain(keyId)) {
    assertAllowed(key, outflow);
    yield* spend(key, outflow);
  }
}
