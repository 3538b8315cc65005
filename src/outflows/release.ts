// A release: a request of the agent that decides that money a commitment holds (or owes) goes to the
// commitment's other party now — the last condition of a contract confirmed, a bet's outcome conceded, a
// loan repaid. Each kind says whether a frozen agent may still make it, and a restricted key's request
// is that key's own outflow (keys/commitments.ts). What the terms settle without a request of the agent
// (deadlines, defaults, oracles, the operator's resolutions, the other party's moves) is not a release:
// it goes on whatever the agent's state.
import { assertNotFrozen } from "../agents/freeze";
import { findAgent } from "../agents/service";
import { actingKey, type Op } from "../db";
import { committingKeyOf, keyChain } from "../keys/service";
import type { ErrorCode } from "../errors";
import { chargeKey, KEY_SPEND_ERRORS, type Spend } from "./budget";
import { type AgentId } from "../ids";

/** Every kind of release, and whether a frozen agent may still make it (docs/owners.md, "The brake"). */
export const RELEASES = {
  /**
   * The last condition of a contract confirmed: its escrow goes to the counterparty. Nothing but the
   * agent's word makes it due, and a frozen agent's word moves nothing: refused; the contract's deadline
   * still settles it (escrow back to the creator), or the agent confirms once unfrozen.
   */
  CONTRACT_CONDITION: { whileFrozen: false },
  /** A bet's outcome conceded: the reporter's stake goes to the other side. Refused for the same reason; the operator or the oracle still settles the bet. */
  BET_CONCESSION: { whileFrozen: false },
  /**
   * A loan repaid: money the borrow already owes that lender, never more than is outstanding, to no one
   * else. Made while frozen: refusing it would only force the default, which takes the collateral and the
   * agent's reputation.
   */
  LOAN_REPAYMENT: { whileFrozen: true },
} as const satisfies Record<string, { whileFrozen: boolean }>;
export type ReleaseKind = keyof typeof RELEASES;

/** What authorizeRelease answers, for every route whose command makes a release (their documentation). */
export const RELEASE_ERRORS = ["AGENT_FROZEN", ...KEY_SPEND_ERRORS] as const satisfies readonly ErrorCode[];

/** Money a commitment of `agentId` holds (or owes) that a request sends to its other party; `madeBy`: the restricted key that made the commitment. */
export type Release = Spend & { kind: ReleaseKind; agentId: AgentId; madeBy: string | null };

/**
 * In the release's write op, before the money moves. A frozen agent's release is refused unless its kind
 * says otherwise. A restricted key's request is that key's outflow: its chain in force, its allowlist,
 * and its budgets, unless its own chain counted the money when it made the commitment (the key that made
 * it, or one that key was made from); the agent key acts freely. Throws AGENT_FROZEN, KEY_INACTIVE,
 * KEY_SCOPE_DENIED or KEY_BUDGET_EXCEEDED.
 */
export function* authorizeRelease(release: Release): Op<void> {
  if (!RELEASES[release.kind].whileFrozen) assertNotFrozen((yield* findAgent(release.agentId))!);
  const keyId = yield* actingKey();
  if (keyId === null) return;
  // An MCP host's token acts for its grant, which is what its commitments record.
  const acting = (yield* committingKeyOf(keyId)).id;
  const counted = release.madeBy !== null && (yield* keyChain(release.madeBy)).some((key) => key.id === acting);
  yield* chargeKey(keyId, release, counted);
}
