// Score changes (CONTRACT.md §4). Write ops: the change commits with the event causing it.
import { addToScore } from "./service";
import type { Op } from "../db";
import { clock } from "../clock";
import { type AgentId } from "../ids";

export const SCORE_CHANGES = {
  PAYMENT_COMPLETED: 1,
  LOAN_REPAID_ON_TIME: 5,
  CONTRACT_FULFILLED: 3,
  BET_WON: 2,
  LOAN_DEFAULT: -10,
  CONTRACT_BREACHED: -5,
} as const;

export type ScoreReason = keyof typeof SCORE_CHANGES;

export function* adjustScore(agentId: AgentId, reason: ScoreReason, reference: { type: string; id: string }): Op<void> {
  yield* addToScore(agentId, { reason, change: SCORE_CHANGES[reason], referenceType: reference.type, referenceId: reference.id, createdAt: clock.nowMs() });
}
