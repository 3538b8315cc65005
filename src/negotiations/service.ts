// Negotiations: OPEN → (counter: the turn passes) → ACCEPTED | AWAITING_HUMAN_APPROVAL → ACCEPTED;
// OPEN or AWAITING_HUMAN_APPROVAL → REJECTED; OPEN → EXPIRED at expiresAt. Only the party who did
// not make the current offer may counter or accept; either may reject.
import { assertNotBlockedBy } from "../agents/blocks";
import { findAgent, lockAgents } from "../agents/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import { all, FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { ApiError, invalid, invalidState, notFound } from "../errors";
import { sha256Hex, uuid } from "../ids";
import { canonicalJson } from "../json";
import { CURRENCIES, toMinor, usdValueExceeds, type Currency } from "../money";
import { HOUR_MS } from "../time";
import { emit, notifyFinancial } from "../webhooks/outbox";
import type { HistoryItem } from "./schema";

type Offer = Record<string, unknown>;
export type NegotiationRow = {
  id: string;
  initiatorId: string;
  counterpartyId: string;
  pairKey: string;
  subject: string;
  status: string;
  currentOffer: Offer;
  offerBy: string;
  history: HistoryItem[];
  relatedEntityType: string | null;
  relatedEntityId: string | null;
  expiresAt: number;
  acceptedOfferHash: string | null;
  acceptedBy: string | null;
  acceptedAt: number | null;
  approvedBy: string | null;
  approvedAt: number | null;
  lastCounterAt: number | null;
  createdAt: number;
  updatedAt: number;
};
/** As stored: JSON columns are text, integer columns arrive as bigint. */
type StoredRow = Omit<NegotiationRow, "currentOffer" | "history" | "expiresAt" | "acceptedAt" | "approvedAt" | "lastCounterAt" | "createdAt" | "updatedAt"> & {
  currentOffer: string;
  history: string;
  expiresAt: bigint;
  acceptedAt: bigint | null;
  approvedAt: bigint | null;
  lastCounterAt: bigint | null;
  createdAt: bigint;
  updatedAt: bigint;
};

const COLUMNS = `id, initiator_id AS initiatorId, counterparty_id AS counterpartyId, pair_key AS pairKey, subject, status,
  current_offer AS currentOffer, offer_by AS offerBy, history, related_entity_type AS relatedEntityType,
  related_entity_id AS relatedEntityId, expires_at AS expiresAt, accepted_offer_hash AS acceptedOfferHash,
  accepted_by AS acceptedBy, accepted_at AS acceptedAt, approved_by AS approvedBy, approved_at AS approvedAt,
  last_counter_at AS lastCounterAt, created_at AS createdAt, updated_at AS updatedAt`;

const maybeNumber = (value: bigint | null) => (value === null ? null : Number(value));
const parsed = (row: StoredRow): NegotiationRow => ({
  ...row,
  currentOffer: JSON.parse(row.currentOffer) as Offer,
  history: JSON.parse(row.history) as HistoryItem[],
  expiresAt: Number(row.expiresAt),
  acceptedAt: maybeNumber(row.acceptedAt),
  approvedAt: maybeNumber(row.approvedAt),
  lastCounterAt: maybeNumber(row.lastCounterAt),
  createdAt: Number(row.createdAt),
  updatedAt: Number(row.updatedAt),
});

export const MAX_OPEN_PER_PAIR = 3;
export const COUNTER_COOLDOWN_MS = 30_000;
export const MAX_OFFER_BYTES = 16 * 1024;
export const MAX_OFFER_DEPTH = 10;
const LIVE = ["OPEN", "AWAITING_HUMAN_APPROVAL"];
const LIVE_IN = `(${LIVE.map(() => "?").join(", ")})`;

const pairKey = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);
const otherParty = (row: NegotiationRow, agentId: string) => (row.initiatorId === agentId ? row.counterpartyId : row.initiatorId);
/** Canonical JSON (sorted keys), so the approval hash does not depend on key order. */
const offerHash = (offer: Offer) => sha256Hex(canonicalJson(offer));

export function negotiationView(row: NegotiationRow) {
  return {
    id: row.id,
    initiatorId: row.initiatorId,
    counterpartyId: row.counterpartyId,
    subject: row.subject,
    status: row.status,
    currentOffer: row.currentOffer,
    offerBy: row.offerBy,
    turn: row.status === "OPEN" ? otherParty(row, row.offerBy) : null,
    history: row.history,
    relatedEntityType: row.relatedEntityType,
    relatedEntityId: row.relatedEntityId,
    expiresAt: iso(row.expiresAt),
    acceptedBy: row.acceptedBy,
    acceptedOfferHash: row.acceptedOfferHash,
    acceptedAt: row.acceptedAt === null ? null : iso(row.acceptedAt),
    approvedBy: row.approvedBy,
    approvedAt: row.approvedAt === null ? null : iso(row.approvedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Checks a numeric `amount` against its `currency` (default USDC); size and depth are bounded by the route's schema. */
function checkOffer(offer: Offer): void {
  if (offer.currency !== undefined && !(CURRENCIES as readonly unknown[]).includes(offer.currency)) {
    throw invalid(`offer.currency must be one of ${CURRENCIES.join(", ")}`);
  }
  if (offer.amount !== undefined) {
    if (typeof offer.amount !== "number") throw invalid("offer.amount must be a number");
    toMinor(offer.amount, (offer.currency as Currency | undefined) ?? "USDC", "offer.amount");
  }
}

/** Does accepting this offer need a human? Its amount's USD value is above the threshold. */
function needsHuman(offer: Offer): boolean {
  if (typeof offer.amount !== "number") return false;
  const currency = (offer.currency as Currency | undefined) ?? "USDC";
  return usdValueExceeds(toMinor(offer.amount, currency, "offer.amount"), currency, config.referenceRates[currency]!, config.negotiationApprovalThreshold);
}

/** `lock`: in a write op that changes the negotiation from what it read (see db/postgres.ts). */
function* find(id: string, lock = false): Query<NegotiationRow | null> {
  const row = yield* get<StoredRow>(`SELECT ${COLUMNS} FROM negotiations WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
  return row && parsed(row);
}

/** The stored columns, in one order for INSERT and UPDATE (JSON fields as text). */
const STORED = ["initiator_id", "counterparty_id", "pair_key", "subject", "status", "current_offer", "offer_by", "history", "related_entity_type",
  "related_entity_id", "expires_at", "accepted_offer_hash", "accepted_by", "accepted_at", "approved_by", "approved_at", "last_counter_at",
  "created_at", "updated_at"];
const storedValues = (row: NegotiationRow) => [
  row.initiatorId, row.counterpartyId, row.pairKey, row.subject, row.status, JSON.stringify(row.currentOffer), row.offerBy,
  JSON.stringify(row.history), row.relatedEntityType, row.relatedEntityId, row.expiresAt, row.acceptedOfferHash, row.acceptedBy,
  row.acceptedAt, row.approvedBy, row.approvedAt, row.lastCounterAt, row.createdAt, row.updatedAt,
];

function* update(row: NegotiationRow, changes: Partial<NegotiationRow>, now = clock.nowMs()): Query<NegotiationRow> {
  const next = { ...row, ...changes, updatedAt: now };
  yield* run(`UPDATE negotiations SET ${STORED.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`, ...storedValues(next), row.id);
  return next;
}

function* notifyParties(row: NegotiationRow, kind: string, summary: string, parties = [row.initiatorId, row.counterpartyId]): Query<void> {
  for (const agentId of parties) {
    yield* notifyFinancial(agentId, kind, { negotiationId: row.id, status: row.status, subject: row.subject, offer: row.currentOffer }, summary);
  }
}

/** A write op: OPEN past its expiry becomes EXPIRED (returns the row as it now is). */
function* expireIfDue(row: NegotiationRow): Query<NegotiationRow> {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  const expired = yield* update(row, { status: "EXPIRED" });
  yield* notifyParties(expired, "negotiation.expired", `Negotiation "${row.subject}" expired`);
  return expired;
}

/** A negotiation as its party sees it (due expiry applied); anyone else gets 404. */
function* forParty(id: string, agentId: string): Query<NegotiationRow> {
  const row = yield* find(id, true);
  if (!row || (row.initiatorId !== agentId && row.counterpartyId !== agentId)) throw notFound("negotiation");
  return yield* expireIfDue(row);
}

export function* createNegotiation(
  initiatorId: string,
  body: { counterpartyId: string; subject: string; offer: Offer; relatedEntityType?: string; relatedEntityId?: string; expiresInHours?: number },
) {
  if (body.counterpartyId === initiatorId) throw invalid("you cannot negotiate with yourself");
  if (!(yield* findAgent(body.counterpartyId))) throw notFound("counterparty agent");
  yield* assertNotBlockedBy(body.counterpartyId, initiatorId);
  checkOffer(body.offer);
  const key = pairKey(initiatorId, body.counterpartyId);
  // The pair's limit holds across instances: creations for the same two agents run one at a time.
  yield* lockAgents([initiatorId, body.counterpartyId]);
  for (const live of yield* all<StoredRow>(`SELECT ${COLUMNS} FROM negotiations WHERE pair_key = ? AND status = 'OPEN' ${FOR_UPDATE}`, key)) yield* expireIfDue(parsed(live));
  const open = Number((yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM negotiations WHERE pair_key = ? AND status IN ${LIVE_IN}`, key, ...LIVE))!.n);
  if (open >= MAX_OPEN_PER_PAIR) throw new ApiError("PAIR_LIMIT_EXCEEDED", `at most ${MAX_OPEN_PER_PAIR} open negotiations between two agents`);
  const now = clock.nowMs();
  const row: NegotiationRow = {
    id: uuid(),
    initiatorId,
    counterpartyId: body.counterpartyId,
    pairKey: key,
    subject: body.subject,
    status: "OPEN",
    currentOffer: body.offer,
    offerBy: initiatorId,
    history: [],
    relatedEntityType: body.relatedEntityType ?? null,
    relatedEntityId: body.relatedEntityId ?? null,
    expiresAt: now + Math.round((body.expiresInHours ?? 24) * HOUR_MS),
    acceptedOfferHash: null,
    acceptedBy: null,
    acceptedAt: null,
    approvedBy: null,
    approvedAt: null,
    lastCounterAt: null,
    createdAt: now,
    updatedAt: now,
  };
  yield* run(`INSERT INTO negotiations (id, ${STORED.join(", ")}) VALUES (?, ${STORED.map(() => "?").join(", ")})`, row.id, ...storedValues(row));
  yield* emit(
    row.counterpartyId,
    "negotiation.received",
    { negotiationId: row.id, initiatorId, subject: row.subject, offer: row.currentOffer },
    { subject: `Negotiation: ${row.subject}`, body: `A new negotiation was started with you.` },
  );
  return negotiationView(row);
}

function assertTurn(row: NegotiationRow, agentId: string): void {
  if (row.status !== "OPEN") throw invalidState(`the negotiation is ${row.status}`);
  if (row.offerBy === agentId) throw invalidState("it is the other party's turn: you made the current offer");
}

export function* counter(agentId: string, id: string, offer: Offer) {
  // The cooldown is per pair: the pair is locked first (in the order creation locks it), then the row.
  const parties = yield* find(id);
  if (parties) yield* lockAgents([parties.initiatorId, parties.counterpartyId]);
  const row = yield* forParty(id, agentId);
  assertTurn(row, agentId);
  yield* assertNotBlockedBy(otherParty(row, agentId), agentId);
  checkOffer(offer);
  const now = clock.nowMs();
  const last = maybeNumber((yield* get<{ at: bigint | null }>("SELECT MAX(last_counter_at) AS at FROM negotiations WHERE pair_key = ?", row.pairKey))!.at);
  if (last !== null && now - last < COUNTER_COOLDOWN_MS) {
    const retryAfterSeconds = Math.ceil((last + COUNTER_COOLDOWN_MS - now) / 1000);
    throw new ApiError("PAIR_LIMIT_EXCEEDED", `wait ${retryAfterSeconds} s: at most one counter-offer per 30 s between two agents`, { retryAfterSeconds });
  }
  const next = yield* update(row, {
    currentOffer: offer,
    offerBy: agentId,
    history: [...row.history, { by: agentId, offer, at: iso(now) }],
    lastCounterAt: now,
  }, now);
  yield* notifyParties(next, "negotiation.countered", `Counter-offer on "${row.subject}"`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function* accept(agentId: string, id: string) {
  const row = yield* forParty(id, agentId);
  assertTurn(row, agentId);
  yield* assertNotBlockedBy(otherParty(row, agentId), agentId);
  const now = clock.nowMs();
  const human = needsHuman(row.currentOffer);
  const next = yield* update(row, {
    status: human ? "AWAITING_HUMAN_APPROVAL" : "ACCEPTED",
    acceptedBy: agentId,
    acceptedAt: now,
    acceptedOfferHash: offerHash(row.currentOffer),
  }, now);
  if (human) yield* notifyParties(next, "negotiation.awaiting_approval", `"${row.subject}" was accepted and needs an owner's approval`);
  else yield* notifyParties(next, "negotiation.accepted", `"${row.subject}" was accepted`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function* reject(agentId: string, id: string) {
  const row = yield* forParty(id, agentId);
  if (!LIVE.includes(row.status)) throw invalidState(`the negotiation is ${row.status}`);
  const next = yield* update(row, { status: "REJECTED" });
  yield* notifyParties(next, "negotiation.rejected", `"${row.subject}" was rejected`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

/** The owner of either party approves exactly the offer that was accepted. */
export function* humanApprove(ownerAgentId: string, id: string) {
  const row = yield* find(id, true);
  if (!row || (row.initiatorId !== ownerAgentId && row.counterpartyId !== ownerAgentId)) throw notFound("negotiation");
  if (row.status !== "AWAITING_HUMAN_APPROVAL") throw invalidState(`the negotiation is ${row.status}, not AWAITING_HUMAN_APPROVAL`);
  if (row.acceptedOfferHash !== offerHash(row.currentOffer)) throw invalidState("the offer changed since it was accepted");
  const now = clock.nowMs();
  const next = yield* update(row, { status: "ACCEPTED", approvedBy: ownerAgentId, approvedAt: now }, now);
  yield* notifyParties(next, "negotiation.approved", `"${row.subject}" was approved by an owner`);
  return negotiationView(next);
}

/** The owner of either party declines the accepted offer: the negotiation is REJECTED. */
export function* humanDecline(ownerAgentId: string, id: string) {
  const row = yield* find(id, true);
  if (!row || (row.initiatorId !== ownerAgentId && row.counterpartyId !== ownerAgentId)) throw notFound("negotiation");
  if (row.status !== "AWAITING_HUMAN_APPROVAL") throw invalidState(`the negotiation is ${row.status}, not AWAITING_HUMAN_APPROVAL`);
  const next = yield* update(row, { status: "REJECTED" });
  yield* notifyParties(next, "negotiation.rejected", `"${row.subject}" was declined by an owner`);
  return negotiationView(next);
}

/**
 * The negotiations of `agentId` that are an owner's business, as rows of the owner's approval list
 * (owners/service.ts pages them together with held outflows): waiting for an owner (PENDING), or
 * approved by one (APPROVED). `status` narrows it.
 */
export function ownerQueueSelect(agentId: string, status?: string): { sql: string; params: unknown[] } {
  const which = status === "PENDING" ? "status = 'AWAITING_HUMAN_APPROVAL'" : status === "APPROVED" ? "approved_by IS NOT NULL" : status ? "1 = 0" : "(status = 'AWAITING_HUMAN_APPROVAL' OR approved_by IS NOT NULL)";
  return {
    sql: `SELECT id, CASE WHEN status = 'AWAITING_HUMAN_APPROVAL' THEN 1 ELSE 0 END AS pending, accepted_at AS at
          FROM negotiations WHERE (initiator_id = ? OR counterparty_id = ?) AND ${which}`,
    params: [agentId, agentId],
  };
}

export function* negotiationsByIds(ids: string[]): Query<NegotiationRow[]> {
  if (ids.length === 0) return [];
  return (yield* all<StoredRow>(`SELECT ${COLUMNS} FROM negotiations WHERE id IN (${ids.map(() => "?").join(", ")})`, ...ids)).map(parsed);
}

/** A negotiation's amount, if its offer names one: what the owner weighs against the threshold. */
export function offerAmount(offer: Offer): { amount: number; currency: Currency } | null {
  if (typeof offer.amount !== "number") return null;
  return { amount: offer.amount, currency: (offer.currency as Currency | undefined) ?? "USDC" };
}

const dueExpiries: DueWork = {
  name: "negotiations.expire",
  table: "negotiations",
  where: "status = 'OPEN'",
  dueColumn: "expires_at",
  apply: (id) =>
    write(function* () {
      const row = yield* find(id, true);
      return row !== null && (yield* expireIfDue(row)) !== row;
    }),
};
const partyScope = (agentId: string) => ({ where: "(initiator_id = ? OR counterparty_id = ?)", params: [agentId, agentId] });

/** The job: every OPEN negotiation past its expiry becomes EXPIRED. */
export const expireDueNegotiations = () => applyDue(dueExpiries);

/**
 * An action on one negotiation: its due expiry is committed first, in an op of its own, so a 409 on
 * an expired negotiation leaves it stored as EXPIRED.
 */
export async function actOn<T>(id: string, op: () => Query<T>): Promise<T> {
  await applyIfDue(dueExpiries, id);
  return write(op);
}

/** Reads apply due expiries first (a write only when something is due). */
export async function getNegotiation(agentId: string, id: string) {
  await applyIfDue(dueExpiries, id);
  const row = await read(find(id));
  if (!row || (row.initiatorId !== agentId && row.counterpartyId !== agentId)) throw notFound("negotiation");
  return negotiationView(row);
}

export async function listNegotiations(agentId: string, filter: { status?: string }, window: PageWindow) {
  await applyDue(dueExpiries, partyScope(agentId));
  const narrow = filter.status ? { where: "status = ?", params: [filter.status] } : undefined;
  return read(newestFirst({ table: "negotiations", columns: COLUMNS, scope: partyScope(agentId), narrow }, window, (row: StoredRow) => negotiationView(parsed(row))));
}
