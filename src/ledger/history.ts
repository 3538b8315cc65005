// An agent's history is the postings on its available accounts, newest first: one index range.
import { all, get, type Query } from "../db";
import { iso } from "../clock";
import { toMajor, type Currency } from "../money";

export type HistoryEntry = {
  id: string;
  type: string;
  amount: number;
  currency: Currency;
  counterpartyId: string | null;
  reference: { type: string; id: string };
  createdAt: string;
};

export function* historyOf(agentId: string, limit: number, offset: number): Query<{ total: number; data: HistoryEntry[] }> {
  const total = (yield* get<{ n: bigint }>("SELECT CAST(COALESCE(SUM(posting_count), 0) AS BIGINT) AS n FROM accounts WHERE agent_id = ? AND kind = 'available'", agentId))!;
  const rows = yield* all<{
    id: bigint;
    type: string;
    amount: bigint;
    currency: Currency;
    counterpartyId: string | null;
    referenceType: string;
    referenceId: string;
    createdAt: bigint;
  }>(
      `SELECT p.id, p.history_type AS type, p.amount, p.currency, p.counterparty_id AS counterpartyId,
              e.reference_type AS referenceType, e.reference_id AS referenceId, p.created_at AS createdAt
       FROM postings p JOIN journal_entries e ON e.id = p.entry_id
       WHERE p.history_agent_id = ?
       ORDER BY p.id DESC LIMIT ? OFFSET ?`,
    agentId,
    limit,
    offset,
  );
  return {
    total: Number(total.n),
    data: rows.map((row) => ({
      id: String(row.id),
      type: row.type,
      amount: toMajor(row.amount, row.currency),
      currency: row.currency,
      counterpartyId: row.counterpartyId,
      reference: { type: row.referenceType, id: row.referenceId },
      createdAt: iso(Number(row.createdAt)),
    })),
  };
}
