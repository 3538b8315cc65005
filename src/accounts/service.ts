// Owner accounts: a person known by an e-mail address they proved they read, owning any number of
// agents. An agent is claimed with a single-use link mailed to its registration's ownerEmail (7 days);
// an owner signs in to the console with a single-use link mailed to their address (15 minutes). A link
// is only ever used by a POST (a mail scanner's GET opens it and claims nothing).
import { clock } from "../clock";
import { find, FOR_UPDATE, insertNew, run, select, type Op } from "../db";
import { ApiError, invalidState, notFound } from "../errors";
import { type AgentId, secret, sha256Hex, uuid } from "../ids";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../time";
import { agentOwners, ownerLinks, owners, type LinkPurpose } from "./schema";

export const LINK_LIFETIME_MS: Record<LinkPurpose, number> = { claim: 7 * DAY_MS, sign_in: 15 * MINUTE_MS };
/** Sign-in links mailed to one address per hour, at most: a form anyone may post cannot flood a mailbox. */
export const SIGN_IN_LINKS_PER_HOUR = 5;

export type OwnerRow = { id: string; email: string };
export type LinkRow = { purpose: LinkPurpose; email: string; agentId: AgentId | null; next: string | null };

/** An address as it is stored and compared: trimmed, lower-cased. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

/** A write op: a new single-use link; returns its token (shown only in the mail). */
export function* issueLink(purpose: LinkPurpose, email: string, agentId: AgentId | null, next: string | null = null): Op<string> {
  const token = secret(purpose === "claim" ? "oc_claim_" : "os_");
  const now = clock.nowMs();
  yield* insertNew(ownerLinks, { id: sha256Hex(token), purpose, email: normalEmail(email), agentId, next, createdAt: now, expiresAt: now + LINK_LIFETIME_MS[purpose] }, ["id"]);
  return token;
}

/** How many sign-in links went to `email` in the last hour. */
export function* recentSignInLinks(email: string): Op<number> {
  const rows = yield* select(ownerLinks, "email = ? AND purpose = 'sign_in' AND created_at > ?", normalEmail(email), clock.nowMs() - HOUR_MS);
  return rows.length;
}

/** The link of `token` while it can still be used (a read: what its confirmation page shows); null otherwise. */
export function* openLink(token: string, purpose: LinkPurpose): Op<LinkRow | null> {
  const row = yield* find(ownerLinks, sha256Hex(token));
  if (!row || row.purpose !== purpose || row.usedAt !== null || row.expiresAt <= clock.nowMs()) return null;
  return row;
}

/** A write op: uses the link, once (of two uses at once, one wins); 409 if it was used, expired or is unknown. */
export function* useLink(token: string, purpose: LinkPurpose): Op<LinkRow> {
  const row = yield* openLink(token, purpose);
  if (!row || (yield* run("UPDATE owner_links SET used_at = ? WHERE id = ? AND used_at IS NULL", clock.nowMs(), sha256Hex(token))) === 0) {
    throw invalidState("this link was already used, has expired, or never existed: ask for a new one");
  }
  return row;
}

/** A write op: the owner with this address, made on its first proof. */
export function* ownerFor(email: string): Op<OwnerRow> {
  const address = normalEmail(email);
  const made = yield* insertNew(owners, { id: uuid(), email: address, createdAt: clock.nowMs() }, ["email"]);
  return made ?? (yield* select(owners, "email = ?", address))[0]!;
}

export function* ownerByEmail(email: string): Op<OwnerRow | null> {
  return (yield* select(owners, "email = ?", normalEmail(email)))[0] ?? null;
}

/** The owner who claimed the agent, or null (unclaimed). */
export function* ownerOf(agentId: AgentId): Op<OwnerRow | null> {
  const [claim] = yield* select(agentOwners, "agent_id = ?", agentId);
  return claim === undefined ? null : yield* find(owners, claim.ownerId);
}

/** A write op: `ownerId` claims the agent; 409 if another owner already has (claims are for good). */
export function* claimAgent(agentId: AgentId, ownerId: string): Op<void> {
  const made = yield* insertNew(agentOwners, { agentId, ownerId, claimedAt: clock.nowMs() }, ["agentId"]);
  if (made) return;
  const claim = (yield* select(agentOwners, `agent_id = ? ${FOR_UPDATE}`, agentId))[0];
  if (!claim) throw notFound("agent");
  if (claim.ownerId !== ownerId) throw new ApiError("INVALID_STATE", "this agent was already claimed by another owner");
}

/** The agents an owner claimed, oldest claim first (ids). */
export function* agentsOf(ownerId: string): Op<AgentId[]> {
  return (yield* select(agentOwners, "owner_id = ? ORDER BY claimed_at", ownerId)).map((row) => row.agentId);
}

/** Whether the owner claimed this agent. */
export function* owns(ownerId: string, agentId: AgentId): Op<boolean> {
  return (yield* select(agentOwners, "agent_id = ?", agentId))[0]?.ownerId === ownerId;
}
