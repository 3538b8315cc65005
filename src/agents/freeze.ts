// The brakes on an agent (issue 33): its owner and the operator can each freeze it. While either brake is
// on, every outflow the agent starts is refused with 403 AGENT_FROZEN — authorizeOutflow reads the agent's
// row anyway (outflows/check.ts), and so does a release by request (outflows/release.ts) — scheduled
// charges pause, money coming in is credited, and what is already in escrow settles by its own rules
// (docs/owners.md, "The brake"). Two brakes, not one flag: each party lifts only its own, so an owner
// cannot lift the operator's freeze, nor the operator silently undo the owner's. Which brakes are on is on
// the agent's row (cached with it on SQLite; every change goes through updateAgent, which forgets it);
// agent_freezes records every freeze and unfreeze, with whom and why.
import { clock, iso } from "../clock";
import { find, insertOnly, select, type Op } from "../db";
import { ApiError, notFound } from "../errors";
import { type AgentId, uuid } from "../ids";
import { agentFreezes, agents } from "./schema";
import { findAgent, isFrozen, updateAgent, type AgentRow } from "./service";

export const BRAKES = ["owner", "operator"] as const;
export type Brake = (typeof BRAKES)[number];

const COLUMN = { owner: "ownerFrozenAt", operator: "operatorFrozenAt" } as const satisfies Record<Brake, keyof AgentRow>;
const WHO: Record<Brake, string> = { owner: "its owner", operator: "the operator" };

/** The brakes on, owner first. */
export const brakesOn = (agent: AgentRow) => BRAKES.filter((brake) => agent[COLUMN[brake]] !== null);

/** Why an outflow of this agent is refused now, or null when no brake is on. */
export function frozenError(agent: AgentRow): ApiError | null {
  const on = brakesOn(agent);
  if (on.length === 0) return null;
  const since = Math.min(...on.map((brake) => Number(agent[COLUMN[brake]])));
  return new ApiError(
    "AGENT_FROZEN",
    `this agent was frozen by ${on.map((brake) => WHO[brake]).join(" and ")} at ${iso(since)}: nothing it starts moves money until it is unfrozen (money coming in is still credited)`,
    { details: { frozenBy: on, since: iso(since) } },
  );
}

/** Throws 403 AGENT_FROZEN if a brake is on: first in every check of money the agent sends. */
export function assertNotFrozen(agent: AgentRow): void {
  const refusal = frozenError(agent);
  if (refusal) throw refusal;
}

/** SQL: the agent whose id `idColumn` holds is not frozen (due work that would move its money leaves it be). */
export const notFrozenSql = (idColumn: string) =>
  `NOT EXISTS (SELECT 1 FROM agents WHERE agents.id = ${idColumn} AND (agents.owner_frozen_at IS NOT NULL OR agents.operator_frozen_at IS NOT NULL))`;

/**
 * A write op: the brake goes on (`on`) or off, recorded with its reason; false if it already was so
 * (nothing changes, nothing is recorded). The agent's row is locked first, so of concurrent freezes of
 * one agent, on any instance, exactly one changes and records it, and the others find it done.
 */
export function* setBrake(agentId: AgentId, brake: Brake, on: boolean, reason: string | null): Op<boolean> {
  const row = yield* find(agents, agentId, true);
  if (!row) throw notFound("agent");
  if ((row[COLUMN[brake]] !== null) === on) return false;
  const now = clock.nowMs();
  yield* updateAgent(agentId, { [COLUMN[brake]]: on ? now : null });
  yield* insertOnly(agentFreezes, { id: uuid(), agentId, brake, action: on ? "FREEZE" : "UNFREEZE", reason, createdAt: now });
  return true;
}

/** A brake that is on: since when, and why (as its party said; null: no reason given). */
export type BrakeOn = { since: string; reason: string | null };
export type FreezeState = { agentId: AgentId; frozen: boolean; brakes: Record<Brake, BrakeOn | null> };

/** The brakes on the agent: each one on with when and why it went on (its FREEZE record), null when off. */
export function* freezeView(agentId: AgentId): Op<FreezeState> {
  const agent = yield* findAgent(agentId);
  if (!agent) throw notFound("agent");
  const brakes: Record<Brake, BrakeOn | null> = { owner: null, operator: null };
  for (const brake of brakesOn(agent)) {
    const [record] = yield* select(agentFreezes, "agent_id = ? AND brake = ? AND action = 'FREEZE' ORDER BY created_at DESC LIMIT 1", agentId, brake);
    brakes[brake] = { since: iso(Number(agent[COLUMN[brake]])), reason: record?.reason ?? null };
  }
  return { agentId, frozen: isFrozen(agent), brakes };
}
