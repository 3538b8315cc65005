// Score changes (CONTRACT.md §4). Call inside write(): the change commits with the event causing it.
import { sqlite } from "../db";
import { clock } from "../clock";
import { uuid } from "../ids";

export const SCORE_CHANGES = {
  PAYMENT_COMPLETED: 1,
  LOAN_REPAID_ON_TIME: 5,
  CONTRACT_FULFILLED: 3,
  BET_WON: 2,
  LOAN_DEFAULT: -10,
  CONTRACT_BREACHED: -5,
} as const;

export type ScoreReason = keyof typeof SCORE_CHANGES;

export function adjustScore(agentId: string, reason: ScoreReason, reference: { type: string; id: string }): void {
  const change = SCORE_CHANGES[reason];
  sqlite.query("UPDATE agents SET score = score + ? WHERE id = ?").run(change, agentId);
  sqlite
    .query("INSERT INTO score_events (id, agent_id, reason, change, reference_type, reference_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(uuid(), agentId, reason, change, reference.type, reference.id, clock.nowMs());
}

export function scoreOf(agentId: string): number {
  const row = sqlite.query("SELECT score FROM agents WHERE id = ?").get(agentId) as { score: bigint } | null;
  return Number(row?.score ?? 0n);
}
