// Score changes (CONTRACT.md §4). Write ops: the change commits with the event causing it.
import { run, type Query } from "../db";
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

export function* adjustScore(agentId: string, reason: ScoreReason, reference: { type: string; id: string }): Query<void> {
  const change = SCORE_CHANGES[reason];
  yield* run("UPDATE agents SET score = score + ? WHERE id = ?", change, agentId);
  yield* run(
    "INSERT INTO score_events (id, agent_id, reason, change, reference_type, reference_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    uuid(),
    agentId,
    reason,
    change,
    reference.type,
    reference.id,
    clock.nowMs(),
  );
}
