// An agent's history is the postings on its available accounts, newest first: one index range (and,
// for a payment, its reason, by the payment's primary key). The restricted key that made a movement is
// shown only to the key's own agent: the counterparty's side of the same entry says nothing of it.
import { get, pageRows, type PageWindow, type Op } from "../db";
import { iso } from "../clock";
import { toMajor, type Currency } from "../money";
import type { Reference } from "./ledger";
import { type AgentId } from "../ids";

export type HistoryEntry = {
  id: string;
  type: string;
  amount: number;
  currency: Currency;
  counterpartyId: AgentId | null;
  reason: string | null;
  keyId: string | null;
  reference: Reference;
  createdAt: string;
};

export function* historyOf(agentId: AgentId, window: PageWindow): Op<{ total: number; data: HistoryEntry[]; more: boolean }> {
  const total = (yield* get<{ n: bigint }>("SELECT CAST(COALESCE(SUM(posting_count), 0) AS BIGINT) AS n FROM accounts WHERE agent_id = ? AND kind = 'available'", agentId))!;
  const { rows, more } = yield* pageRows<{
    id: bigint;
    type: string;
    amount: bigint;
    currency: Currency;
    counterpartyId: AgentId | null;
    reason: string | null;
    keyId: string | null;
    referenceType: string;
    referenceId: string;
    createdAt: bigint;
  }>(
    {
      select: `SELECT p.id, p.history_type AS type, p.amount, p.currency, p.counterparty_id AS counterpartyId, pay.reason, k.id AS keyId,
                      e.reference_type AS referenceType, e.reference_id AS referenceId, p.created_at AS createdAt
               FROM postings p JOIN journal_entries e ON e.id = p.entry_id
               LEFT JOIN payments pay ON e.reference_type = 'payment' AND pay.id = e.reference_id
               LEFT JOIN agent_keys k ON k.id = e.key_id AND k.agent_id = p.history_agent_id`,
      where: "p.history_agent_id = ?",
      params: [agentId],
      // Posting ids grow with every posting: the id alone orders the history.
      order: ["p.id"],
      position: (after) => ["SELECT id FROM postings WHERE id = ? AND history_agent_id = ?", BigInt(after), agentId],
    },
    window,
  );
  return {
    total: Number(total.n),
    more,
    data: rows.map((row) => ({
      id: String(row.id),
      type: row.type,
      amount: toMajor(row.amount, row.currency),
      currency: row.currency,
      counterpartyId: row.counterpartyId,
      reason: row.reason,
      keyId: row.keyId,
      reference: { type: row.referenceType, id: row.referenceId },
      createdAt: iso(Number(row.createdAt)),
    })),
  };
}
