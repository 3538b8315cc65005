// The owner's side of an agent: its spending policy, and one list of what waits for the owner — held
// outflows and accepted negotiations above the threshold — approved or declined from here (API and
// console alike).
import { findAgent, findAgentByKeyHash, lockAgents, namesOf, replaceKeyHash, updateAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import { find, get, pageRows, read, write, type PageWindow, type Op } from "../db";
import { closeSessionsOf } from "./sessions";
import { ApiError, invalid, invalidState, notFound } from "../errors";
import { type AgentId, secret, sha256Hex } from "../ids";
import { keyNamesOf, revokeKeysMadeWith } from "../keys/service";
import { CURRENCIES, toMajor, toMinor, usdValue, type Currency } from "../money";
import { humanApprove, humanDecline, negotiationsByIds, ownerQueueSelect } from "../negotiations/approvals";
import { isParty, offerOf, type Negotiation } from "../negotiations/negotiation";
import { offerAmount } from "../negotiations/offers";
import { approvalsByIds, type ApprovalRow } from "../outflows/approvals";
import { approvals } from "../outflows/schema";
import { approveOutflow, declineOutflow, type Executor } from "./decisions";
import { EMPTY_POLICY, limitsView, parsePolicy, policyFromInput, storePolicy, type MajorLimits, type PolicyInput } from "../outflows/policy";
import { spentInWindow } from "../outflows/usage";
import { readJson } from "../json";

export function* policyView(agentId: AgentId) {
  const agent = (yield* findAgent(agentId))!;
  const policy = parsePolicy(agent.policy) ?? EMPTY_POLICY;
  const spentLast24h: MajorLimits = {};
  const remainingToday: MajorLimits = {};
  for (const currency of CURRENCIES) {
    const spent = yield* spentInWindow(agentId, currency);
    if (spent > 0n) spentLast24h[currency] = toMajor(spent, currency);
    const cap = policy.daily[currency];
    if (cap !== undefined) remainingToday[currency] = toMajor(cap > spent ? cap - spent : 0n, currency);
  }
  return {
    agentId,
    perTransaction: limitsView(policy.perTransaction),
    daily: limitsView(policy.daily),
    allowlist: policy.allowlist,
    approvalAbove: limitsView(policy.approvalAbove),
    spentLast24h,
    remainingToday,
  };
}

/** Replaces the policy. Every allowlisted agent must exist: a typo would otherwise silently allow no one. */
/** A write op: the owner's new policy; every agent on its allowlist must exist. */
export function* setPolicy(agentId: AgentId, input: PolicyInput) {
  const policy = policyFromInput(input);
  if (policy.allowlist) {
    const known = yield* namesOf(policy.allowlist);
    const unknown = policy.allowlist.filter((id) => !known.has(id));
    if (unknown.length) throw invalid(`allowlist: no agent with id ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ""}`);
  }
  yield* updateAgent(agentId, { policy: storePolicy(policy) });
  return yield* policyView(agentId);
}

/**
 * A write op: a new owner key (returned once, stored hashed); the old key, every console session
 * signed in with it and, unless `keepKeys`, every restricted key it made (MCP hosts' grants too) end in
 * the same transaction. `stillSignedIn` re-checks the caller's credential
 * (the key it sent, or its console session) once the agent's row is locked, so of concurrent rotations
 * by one owner exactly one succeeds: the others find their credential ended (401).
 */
export function* rotateOwnerKey(agentId: AgentId, stillSignedIn: () => Op<boolean>, keepKeys = false): Op<{ ownerKey: string; revokedKeys: number }> {
  yield* lockAgents([agentId]);
  if (!(yield* stillSignedIn())) throw new ApiError("UNAUTHORIZED", "invalid owner key: it was rotated");
  const ownerKey = secret("po_");
  const replaced = yield* replaceKeyHash(agentId, "ownerKeyHash", sha256Hex(ownerKey));
  yield* closeSessionsOf(agentId);
  // What the old key made (restricted keys, MCP hosts' grants) ends with it, unless the owner keeps it.
  const revokedKeys = keepKeys ? 0 : yield* revokeKeysMadeWith(agentId, replaced);
  return { ownerKey, revokedKeys };
}

/** For rotateOwnerKey: whether `ownerKey` is the agent's owner key in force. */
export function* ownerKeyInForce(agentId: AgentId, ownerKey: string): Op<boolean> {
  return (yield* findAgentByKeyHash("ownerKeyHash", sha256Hex(ownerKey)))?.id === agentId;
}

const rate = (currency: Currency) => config.referenceRates[currency]!;

function outflowApproval(row: ApprovalRow, agentName: string, names: Map<string, string>, keyNames: Map<string, string>) {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    agentId: row.agentId,
    agentName,
    amount: toMajor(row.amount, row.currency),
    held: row.status === "PENDING" ? toMajor(row.held, row.currency) : 0,
    currency: row.currency,
    usdValue: usdValue(row.amount, row.currency, rate(row.currency)),
    counterpartyId: row.counterpartyId,
    counterpartyName: row.counterpartyId ? (names.get(row.counterpartyId) ?? null) : null,
    terms: readJson(row.terms),
    termsHash: row.termsHash,
    reason: row.reason,
    result: row.result === null ? null : readJson(row.result),
    keyId: row.keyId,
    keyName: row.keyId ? (keyNames.get(row.keyId) ?? null) : null,
    createdAt: iso(Number(row.createdAt)),
    expiresAt: iso(row.expiresAt),
    decidedAt: row.decidedAt === null ? null : iso(Number(row.decidedAt)),
  };
}

function negotiationApproval(row: Negotiation, agentId: AgentId, agentName: string, names: Map<string, string>) {
  const terms = offerOf(row);
  const offer = offerAmount(terms);
  const other = row.initiatorId === agentId ? row.counterpartyId : row.initiatorId;
  return {
    id: row.id,
    kind: "NEGOTIATION",
    status: row.status === "AWAITING_HUMAN_APPROVAL" ? "PENDING" : row.approvedBy !== null ? "APPROVED" : "DECLINED",
    agentId,
    agentName,
    amount: offer?.amount ?? null,
    held: 0,
    currency: offer?.currency ?? null,
    usdValue: offer ? usdValue(toMinor(offer.amount, offer.currency), offer.currency, rate(offer.currency)) : null,
    counterpartyId: other,
    counterpartyName: names.get(other) ?? null,
    terms,
    termsHash: row.acceptedOfferHash ?? "",
    reason: null,
    result: null,
    keyId: null,
    keyName: null,
    createdAt: iso(row.acceptedAt ?? row.createdAt),
    expiresAt: null,
    decidedAt: row.approvedAt === null ? null : iso(row.approvedAt),
  };
}

export type ApprovalView = ReturnType<typeof outflowApproval> | ReturnType<typeof negotiationApproval>;

/** The views of those of `ids` that are `agentId`'s (held outflows of it, negotiations it is party to), in order. */
function* views(agentId: AgentId, ids: string[]): Op<ApprovalView[]> {
  const outflows = (yield* approvalsByIds(ids)).filter((row) => row.agentId === agentId);
  const negotiations = (yield* negotiationsByIds(ids.filter((id) => !outflows.some((row) => row.id === id)))).filter((row) => isParty(row, agentId));
  const agent = (yield* findAgent(agentId))!;
  const names = yield* namesOf([...outflows.map((row) => row.counterpartyId), ...negotiations.flatMap((row) => [row.initiatorId, row.counterpartyId])]);
  const byId = new Map<string, ApprovalView>();
  const keyNames = yield* keyNamesOf(outflows.map((row) => row.keyId));
  for (const row of outflows) byId.set(row.id, outflowApproval(row, agent.name, names, keyNames));
  for (const row of negotiations) byId.set(row.id, negotiationApproval(row, agentId, agent.name, names));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Held outflows and negotiations as one queue: (id, pending, at) rows. A held outflow past its expiry
 * is not counted PENDING even before its expiry is applied (a read cannot apply it).
 */
function queue(agentId: AgentId, status?: string): { sql: string; params: unknown[] } {
  const negotiations = ownerQueueSelect(agentId, status);
  const unexpired = status === "PENDING" ? "AND expires_at > ?" : "";
  return {
    sql: `SELECT id, CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END AS pending, created_at AS at FROM approvals WHERE agent_id = ? ${status ? "AND status = ?" : ""} ${unexpired}
          UNION ALL ${negotiations.sql}`,
    params: [agentId, ...(status ? [status] : []), ...(unexpired ? [clock.nowMs()] : []), ...negotiations.params],
  };
}

/** How many things wait for the owner (the console shows it in its navigation). */
export function* pendingCount(agentId: AgentId): Op<number> {
  const { sql, params } = queue(agentId, "PENDING");
  return Number((yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM (${sql}) AS queue`, ...params))!.n);
}

/**
 * What waits for (or was decided by) the owner, PENDING first, and how many wait: read as one snapshot,
 * so the page and its counts agree (the route applies due expiries first).
 */
export function* approvalQueue(agentId: AgentId, filter: { status?: string }, window: PageWindow) {
  const { sql, params } = queue(agentId, filter.status);
  const total = Number((yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM (${sql}) AS queue`, ...params))!.n);
  const { rows, more } = yield* pageRows<{ id: string }>(
    {
      select: `SELECT id FROM (${sql}) AS queue`,
      where: "1 = 1",
      params,
      order: ["pending", "at", "id"],
      position: (after) => [`SELECT pending, at, id FROM (${sql}) AS queue WHERE id = ?`, ...params, after],
    },
    window,
  );
  const data = yield* views(agentId, rows.map((row) => row.id));
  return { data, total, more, pending: yield* pendingCount(agentId) };
}

/** One of the agent's approvals (the route applies its due expiry first); 404 for anyone else's. */
export function* getApproval(agentId: AgentId, id: string): Op<ApprovalView> {
  const [view] = yield* views(agentId, [id]);
  if (!view) throw notFound("approval");
  return view;
}

/** Whether `id` is one of the agent's held outflows (else it may be one of its negotiations). */
async function isOutflow(agentId: AgentId, id: string): Promise<boolean> {
  const row = await read(find(approvals, id));
  if (row && row.agentId !== agentId) throw notFound("approval");
  return row !== null;
}

function* negotiationFor(agentId: AgentId, id: string, termsHash: string | undefined): Op<Negotiation> {
  const [row] = yield* negotiationsByIds([id]);
  if (!row || !isParty(row, agentId)) throw notFound("approval");
  if (termsHash !== undefined && termsHash !== row.acceptedOfferHash) throw invalidState("the terms you decided on are not the ones accepted (termsHash differs)");
  return row;
}

/**
 * The owner approves a held outflow (it is made, once) or an accepted negotiation. An orchestration, not
 * an op: the decision commits before the held request runs again (an x402 payment asks the network),
 * and a refused decision still stores what it found (an approval past its time, EXPIRED).
 */
export async function approve(agentId: AgentId, id: string, termsHash: string | undefined, execute: Executor): Promise<ApprovalView> {
  if (await isOutflow(agentId, id)) {
    await approveOutflow(agentId, id, termsHash, execute);
  } else {
    await write(function* () {
      yield* negotiationFor(agentId, id, termsHash);
      yield* humanApprove(agentId, id);
    });
  }
  return read(getApproval(agentId, id));
}

/** The owner declines: a held outflow's hold is released; a negotiation is REJECTED. */
export async function decline(agentId: AgentId, id: string, termsHash: string | undefined): Promise<ApprovalView> {
  if (await isOutflow(agentId, id)) {
    await declineOutflow(agentId, id, termsHash);
  } else {
    await write(function* () {
      yield* negotiationFor(agentId, id, termsHash);
      yield* humanDecline(agentId, id);
    });
  }
  return read(getApproval(agentId, id));
}

/** The agent a held outflow is of, or null: a read for the console's link from a mail. */
export function* approvalAgentOf(id: string): Op<AgentId | null> {
  return (yield* find(approvals, id))?.agentId ?? null;
}
