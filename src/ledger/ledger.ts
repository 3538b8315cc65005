// The only writer of money. Every movement is one journal entry whose postings sum to zero per
// currency; agent accounts are checked non-negative in the same transaction, before it commits.
// These are write ops (see db/query.ts): yield* them inside write().
import { clock } from "../clock";
import { actingKey, all, cacheKeys, get, insertId, remember, run, runLater, type Op } from "../db";
import { ApiError } from "../errors";
import { CURRENCIES, toMajor, type Currency } from "../money";
import { type AgentId } from "../ids";

export type AgentAccountKind = "available" | "held";
/** external: money from/to the outside world (deposits, withdrawals). Goes negative by design. */
export type SystemAccountKind = "external" | "withdrawals_in_flight" | "x402_in_flight";

export type AccountRef =
  | { agentId: AgentId; kind: AgentAccountKind; currency: Currency }
  | { agentId: null; kind: SystemAccountKind; currency: Currency };

export type HistoryType =
  | "PAYMENT_SENT"
  | "PAYMENT_RECEIVED"
  | "DEPOSIT"
  | "WITHDRAWAL"
  | "WITHDRAWAL_RETURNED"
  | "ESCROW_HOLD"
  | "ESCROW_RELEASE"
  | "ESCROW_PAYOUT"
  | "LOAN_DISBURSED"
  | "LOAN_REPAYMENT"
  | "X402_PAYMENT"
  | "X402_REFUND"
  | "X402_SALE"
  | "CORRECTION"
  | "SYSTEM";

export type Posting = {
  account: AccountRef;
  amount: bigint;
  historyType: HistoryType;
  counterpartyId?: AgentId | null;
};

/** What a movement belongs to (a payment, a bet, a loan…): shown in the history, names a hold. */
export type Reference = { type: string; id: string };

export type Entry = {
  type: string;
  reference: Reference;
  postings: Posting[];
};

/** Creates an agent's available and held accounts in every currency (at registration). */
export function* openAgentAccounts(agentId: AgentId): Op<void> {
  for (const currency of CURRENCIES) {
    yield* run("INSERT INTO accounts (agent_id, kind, currency, balance) VALUES (?, 'available', ?, 0)", agentId, currency);
    yield* run("INSERT INTO accounts (agent_id, kind, currency, balance) VALUES (?, 'held', ?, 0)", agentId, currency);
  }
}

/** An account's id never changes: known once, remembered (on every engine and instance). */
function accountId(ref: AccountRef): Op<bigint> {
  return remember(cacheKeys.account(ref.agentId, ref.kind, ref.currency), "everywhere", () => loadAccountId(ref));
}

function* loadAccountId(ref: AccountRef): Op<bigint> {
  if (ref.agentId === null) {
    const select = () => get<{ id: bigint }>("SELECT id FROM accounts WHERE agent_id IS NULL AND kind = ? AND currency = ?", ref.kind, ref.currency);
    const row = yield* select();
    if (row) return row.id;
    // Created on first use; the partial unique index makes two instances doing so at once one account.
    yield* run(
      "INSERT INTO accounts (agent_id, kind, currency, balance) VALUES (NULL, ?, ?, 0) ON CONFLICT (kind, currency) WHERE agent_id IS NULL DO NOTHING",
      ref.kind,
      ref.currency,
    );
    return (yield* select())!.id;
  }
  const row = yield* get<{ id: bigint }>("SELECT id FROM accounts WHERE agent_id = ? AND kind = ? AND currency = ?", ref.agentId, ref.kind, ref.currency);
  if (!row) throw new Error(`ledger: no ${ref.kind} ${ref.currency} account for agent ${ref.agentId}`);
  return row.id;
}

/** INSUFFICIENT_BALANCE saying what there is and what was needed, so the caller can act on it. */
function insufficient(posting: Posting, balance: bigint): ApiError {
  const { currency, kind } = posting.account;
  const had = toMajor(balance, currency);
  const needed = toMajor(-posting.amount, currency);
  const where = kind === "available" ? "available" : "held in escrow";
  return new ApiError("INSUFFICIENT_BALANCE", `not enough ${currency} ${where}: ${had} ${currency} ${where}, ${needed} ${currency} needed`, {
    details: { currency, [kind]: had, needed },
  });
}

/** The INSERT of an entry's postings, one text per number of postings (made once, not per entry). */
const postingsInserts: string[] = [];
function postingsInsert(count: number): string {
  postingsInserts[count] ??= `INSERT INTO postings (entry_id, account_id, amount, currency, history_type, counterparty_id, history_agent_id, created_at)
     VALUES ${Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`;
  return postingsInserts[count];
}

/**
 * Moves an account's balance. An agent's account never goes below zero: a debit changes it only if the
 * balance covers it (the condition is checked on the row as it is when updated, so concurrent debits
 * on PostgreSQL cannot both pass). No RETURNING: on SQLite it costs more than the statement.
 */
function* moveBalance(posting: Posting, accountId: bigint): Op<void> {
  if (posting.amount > 0n || posting.account.agentId === null) {
    yield* runLater("UPDATE accounts SET balance = balance + ?, posting_count = posting_count + 1 WHERE id = ?", posting.amount, accountId);
    return;
  }
  const moved = yield* run("UPDATE accounts SET balance = balance + ?, posting_count = posting_count + 1 WHERE id = ? AND balance + ? >= 0", posting.amount, accountId, posting.amount);
  if (moved === 0) throw insufficient(posting, (yield* get<{ balance: bigint }>("SELECT balance FROM accounts WHERE id = ?", accountId))!.balance);
}

/**
 * Posts one balanced entry. Throws INSUFFICIENT_BALANCE when an agent account would go negative;
 * the caller's write op then rolls back as a whole, so nothing of the movement remains.
 */
export function* post(entry: Entry): Op<void> {
  const sums = new Map<string, bigint>();
  for (const posting of entry.postings) {
    if (posting.amount === 0n) throw new Error("ledger: zero posting");
    const currency = posting.account.currency;
    sums.set(currency, (sums.get(currency) ?? 0n) + posting.amount);
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger: entry ${entry.type} does not balance in ${currency} (${sum})`);
  }
  const now = clock.nowMs();
  const entryId = yield* insertId(
    "INSERT INTO journal_entries (type, reference_type, reference_id, key_id, created_at) VALUES (?, ?, ?, ?, ?)",
    entry.type,
    entry.reference.type,
    entry.reference.id,
    yield* actingKey(),
    now,
  );
  const accounts: bigint[] = [];
  const values: unknown[] = [];
  for (const posting of entry.postings) {
    const account = yield* accountId(posting.account);
    accounts.push(account);
    const historyAgentId = posting.account.kind === "available" ? posting.account.agentId : null;
    values.push(entryId, account, posting.amount, posting.account.currency, posting.historyType, posting.counterpartyId ?? null, historyAgentId, now);
  }
  // All postings in one statement (one round trip on PostgreSQL): new rows, no lock to order.
  yield* runLater(postingsInsert(entry.postings.length), ...values);
  // Balances change in account order: two movements between the same accounts in opposite directions
  // then take the row locks in the same order and queue, instead of deadlocking (PostgreSQL).
  const order = entry.postings.map((_, index) => index).sort((a, b) => (accounts[a]! < accounts[b]! ? -1 : accounts[a]! > accounts[b]! ? 1 : a - b));
  for (const index of order) yield* moveBalance(entry.postings[index]!, accounts[index]!);
}

export function* balancesOf(agentId: AgentId): Op<{ currency: Currency; available: bigint; held: bigint }[]> {
  const rows = yield* all<{ kind: AgentAccountKind; currency: Currency; balance: bigint }>("SELECT kind, currency, balance FROM accounts WHERE agent_id = ?", agentId);
  return CURRENCIES.map((currency) => ({
    currency,
    available: rows.find((row) => row.currency === currency && row.kind === "available")?.balance ?? 0n,
    held: rows.find((row) => row.currency === currency && row.kind === "held")?.balance ?? 0n,
  }));
}
