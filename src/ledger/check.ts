// The ledger's invariants, checked from the raw tables: every entry balances per currency, every
// account's balance (and posting count) equals what its postings say, no agent account is negative,
// and each agent's held balance per currency is the sum of its PENDING holds (ledger/escrow.ts).
import { all, get, type Op } from "../db";
import { toMajor, type Currency } from "../money";
import { type AgentId } from "../ids";

export type LedgerCheck = ReturnType<typeof ledgerCheckOf>;

/** The ledger's invariants, from the raw tables (a read). */
export function* checkLedger(): Op<LedgerCheck> {
  const unbalancedEntries = yield* all<{ entryId: bigint; currency: Currency; sum: bigint }>(
    "SELECT entry_id AS entryId, currency, CAST(SUM(amount) AS BIGINT) AS sum FROM postings GROUP BY entry_id, currency HAVING SUM(amount) != 0",
  );
  const mismatchedAccounts = yield* all<{ accountId: bigint; balance: bigint; postings: bigint }>(
    `SELECT a.id AS accountId, a.balance AS balance, COALESCE(p.total, 0) AS postings
     FROM accounts a LEFT JOIN (SELECT account_id, CAST(SUM(amount) AS BIGINT) AS total, COUNT(*) AS n FROM postings GROUP BY account_id) p
       ON p.account_id = a.id
     WHERE a.balance != COALESCE(p.total, 0) OR a.posting_count != COALESCE(p.n, 0)`,
  );
  const negativeAccounts = yield* all<{ accountId: bigint; agentId: AgentId; kind: string; currency: Currency; balance: bigint }>(
    "SELECT id AS accountId, agent_id AS agentId, kind, currency, balance FROM accounts WHERE agent_id IS NOT NULL AND balance < 0",
  );
  const currencyMismatches = (yield* get<{ n: bigint }>("SELECT COUNT(*) AS n FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.currency != p.currency"))!;
  const totals = yield* all<{ currency: Currency; available: bigint; held: bigint; system: bigint }>(
    `SELECT currency,
            CAST(SUM(CASE WHEN agent_id IS NOT NULL AND kind = 'available' THEN balance ELSE 0 END) AS BIGINT) AS available,
            CAST(SUM(CASE WHEN agent_id IS NOT NULL AND kind = 'held' THEN balance ELSE 0 END) AS BIGINT) AS held,
            CAST(SUM(CASE WHEN agent_id IS NULL THEN balance ELSE 0 END) AS BIGINT) AS system
     FROM accounts GROUP BY currency ORDER BY currency`,
  );
  // Held accounts exist for every agent and currency from registration on, so a hold without one cannot be.
  const holdMismatches = yield* all<{ agentId: AgentId; currency: Currency; held: bigint; pending: bigint }>(
    `SELECT a.agent_id AS agentId, a.currency, a.balance AS held, COALESCE(h.total, 0) AS pending
     FROM accounts a LEFT JOIN (SELECT agent_id, currency, CAST(SUM(amount) AS BIGINT) AS total FROM holds WHERE state = 'PENDING' GROUP BY agent_id, currency) h
       ON h.agent_id = a.agent_id AND h.currency = a.currency
     WHERE a.kind = 'held' AND a.balance != COALESCE(h.total, 0)
     ORDER BY a.agent_id, a.currency`,
  );
  const counts = (yield* get<{ entries: bigint; postings: bigint; accounts: bigint }>(
    "SELECT (SELECT COUNT(*) FROM journal_entries) AS entries, (SELECT COUNT(*) FROM postings) AS postings, (SELECT COUNT(*) FROM accounts) AS accounts",
  ))!;
  return ledgerCheckOf({ unbalancedEntries, mismatchedAccounts, negativeAccounts, currencyMismatches, holdMismatches, totals, counts });
}

function ledgerCheckOf({ unbalancedEntries, mismatchedAccounts, negativeAccounts, currencyMismatches, holdMismatches, totals, counts }: {
  unbalancedEntries: { entryId: bigint; currency: Currency; sum: bigint }[];
  mismatchedAccounts: { accountId: bigint; balance: bigint; postings: bigint }[];
  negativeAccounts: { accountId: bigint; agentId: AgentId; kind: string; currency: Currency; balance: bigint }[];
  currencyMismatches: { n: bigint };
  holdMismatches: { agentId: AgentId; currency: Currency; held: bigint; pending: bigint }[];
  totals: { currency: Currency; available: bigint; held: bigint; system: bigint }[];
  counts: { entries: bigint; postings: bigint; accounts: bigint };
}) {
  const ok =
    unbalancedEntries.length === 0 &&
    mismatchedAccounts.length === 0 &&
    negativeAccounts.length === 0 &&
    currencyMismatches.n === 0n &&
    holdMismatches.length === 0;
  return {
    ok,
    entries: Number(counts.entries),
    postings: Number(counts.postings),
    accounts: Number(counts.accounts),
    unbalancedEntries: unbalancedEntries.map((row) => ({ entryId: Number(row.entryId), currency: row.currency, sum: toMajor(row.sum, row.currency) })),
    mismatchedAccounts: mismatchedAccounts.map((row) => ({ accountId: Number(row.accountId), balance: String(row.balance), postings: String(row.postings) })),
    negativeAccounts: negativeAccounts.map((row) => ({ ...row, accountId: Number(row.accountId), balance: toMajor(row.balance, row.currency) })),
    postingsInWrongCurrency: Number(currencyMismatches.n),
    holds: {
      ok: holdMismatches.length === 0,
      mismatches: holdMismatches.map((row) => ({ agentId: row.agentId, currency: row.currency, held: toMajor(row.held, row.currency), pendingHolds: toMajor(row.pending, row.currency) })),
    },
    /** Per currency: what agents hold, and what the outside world put in (−system). They are equal when ok. */
    totals: totals.map((row) => ({
      currency: row.currency,
      agentsAvailable: toMajor(row.available, row.currency),
      agentsHeld: toMajor(row.held, row.currency),
      netInflow: toMajor(-row.system, row.currency),
    })),
  };
}
