// An agent's history is the postings on its available account, newest first.
import { sqlite } from "../db";
import { iso } from "../clock";
import { toMajor, type Currency } from "../money";

export function historyOf(agentId: string, limit: number, offset: number) {
  const total = sqlite
    .query("SELECT COUNT(*) AS n FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.agent_id = ? AND a.kind = 'available'")
    .get(agentId) as { n: bigint };
  const rows = sqlite
    .query(
      `SELECT p.id, p.history_type AS type, p.amount, p.currency, p.counterparty_id AS counterpartyId,
              e.reference_type AS referenceType, e.reference_id AS referenceId, p.created_at AS createdAt
       FROM accounts a JOIN postings p ON p.account_id = a.id JOIN journal_entries e ON e.id = p.entry_id
       WHERE a.agent_id = ? AND a.kind = 'available'
       ORDER BY p.id DESC LIMIT ? OFFSET ?`,
    )
    .all(agentId, limit, offset) as {
    id: bigint;
    type: string;
    amount: bigint;
    currency: Currency;
    counterpartyId: string | null;
    referenceType: string;
    referenceId: string;
    createdAt: bigint;
  }[];
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
