// Negotiations: OPEN → (counter: the turn passes) → ACCEPTED | AWAITING_HUMAN_APPROVAL → ACCEPTED;
// OPEN or AWAITING_HUMAN_APPROVAL → REJECTED; OPEN → EXPIRED at expiresAt. Only the party who did
// not make the current offer may counter or accept; either may reject.
import { and, desc, eq, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import { assertNotBlockedBy } from "../agents/blocks";
import { findAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import { db, write } from "../db";
import { ApiError, invalid, invalidState, notFound } from "../errors";
import { sha256Hex, uuid } from "../ids";
import { canonicalJson } from "../json";
import { CURRENCIES, toMinor, usdValueExceeds, type Currency } from "../money";
import { emit, notifyFinancial } from "../webhooks/outbox";
import { negotiations } from "./schema";

export type NegotiationRow = typeof negotiations.$inferSelect;
type Offer = Record<string, unknown>;

export const MAX_OPEN_PER_PAIR = 3;
export const COUNTER_COOLDOWN_MS = 30_000;
export const MAX_OFFER_BYTES = 16 * 1024;
export const MAX_OFFER_DEPTH = 10;
const HOUR_MS = 3_600_000;
const LIVE = ["OPEN", "AWAITING_HUMAN_APPROVAL"];

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

const find = (id: string) => db.select().from(negotiations).where(eq(negotiations.id, id)).get();

function update(row: NegotiationRow, changes: Partial<NegotiationRow>, now = clock.nowMs()): NegotiationRow {
  const next = { ...row, ...changes, updatedAt: now };
  db.update(negotiations).set(next).where(eq(negotiations.id, row.id)).run();
  return next;
}

function notifyParties(row: NegotiationRow, kind: string, summary: string, parties = [row.initiatorId, row.counterpartyId]): void {
  for (const agentId of parties) {
    notifyFinancial(agentId, kind, { negotiationId: row.id, status: row.status, subject: row.subject, offer: row.currentOffer }, summary);
  }
}

/** Inside write(): OPEN past its expiry becomes EXPIRED (returns the row as it now is). */
function expireIfDue(row: NegotiationRow): NegotiationRow {
  if (row.status !== "OPEN" || row.expiresAt > clock.nowMs()) return row;
  const expired = update(row, { status: "EXPIRED" });
  notifyParties(expired, "negotiation.expired", `Negotiation "${row.subject}" expired`);
  return expired;
}

/** A negotiation as its party sees it (due expiry applied); anyone else gets 404. */
function forParty(id: string, agentId: string): NegotiationRow {
  const row = find(id);
  if (!row || (row.initiatorId !== agentId && row.counterpartyId !== agentId)) throw notFound("negotiation");
  return expireIfDue(row);
}

export function createNegotiation(
  initiatorId: string,
  body: { counterpartyId: string; subject: string; offer: Offer; relatedEntityType?: string; relatedEntityId?: string; expiresInHours?: number },
) {
  if (body.counterpartyId === initiatorId) throw invalid("you cannot negotiate with yourself");
  if (!findAgent(body.counterpartyId)) throw notFound("counterparty agent");
  assertNotBlockedBy(body.counterpartyId, initiatorId);
  checkOffer(body.offer);
  const key = pairKey(initiatorId, body.counterpartyId);
  for (const live of db.select().from(negotiations).where(and(eq(negotiations.pairKey, key), eq(negotiations.status, "OPEN"))).all()) expireIfDue(live);
  const open = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(negotiations).where(and(eq(negotiations.pairKey, key), inArray(negotiations.status, LIVE))).get()!.n;
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
  db.insert(negotiations).values(row).run();
  emit(
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

export function counter(agentId: string, id: string, offer: Offer) {
  const row = forParty(id, agentId);
  assertTurn(row, agentId);
  assertNotBlockedBy(otherParty(row, agentId), agentId);
  checkOffer(offer);
  const now = clock.nowMs();
  const last = db.select({ at: sql<number | null>`max(${negotiations.lastCounterAt})`.mapWith((v) => (v === null ? null : Number(v))) }).from(negotiations).where(eq(negotiations.pairKey, row.pairKey)).get()!.at;
  if (last !== null && now - last < COUNTER_COOLDOWN_MS) {
    const retryAfterSeconds = Math.ceil((last + COUNTER_COOLDOWN_MS - now) / 1000);
    throw new ApiError("PAIR_LIMIT_EXCEEDED", `wait ${retryAfterSeconds} s: at most one counter-offer per 30 s between two agents`, { retryAfterSeconds });
  }
  const next = update(row, {
    currentOffer: offer,
    offerBy: agentId,
    history: [...row.history, { by: agentId, offer, at: iso(now) }],
    lastCounterAt: now,
  }, now);
  notifyParties(next, "negotiation.countered", `Counter-offer on "${row.subject}"`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function accept(agentId: string, id: string) {
  const row = forParty(id, agentId);
  assertTurn(row, agentId);
  assertNotBlockedBy(otherParty(row, agentId), agentId);
  const now = clock.nowMs();
  const human = needsHuman(row.currentOffer);
  const next = update(row, {
    status: human ? "AWAITING_HUMAN_APPROVAL" : "ACCEPTED",
    acceptedBy: agentId,
    acceptedAt: now,
    acceptedOfferHash: offerHash(row.currentOffer),
  }, now);
  if (human) notifyParties(next, "negotiation.awaiting_approval", `"${row.subject}" was accepted and needs an owner's approval`);
  else notifyParties(next, "negotiation.accepted", `"${row.subject}" was accepted`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function reject(agentId: string, id: string) {
  const row = forParty(id, agentId);
  if (!LIVE.includes(row.status)) throw invalidState(`the negotiation is ${row.status}`);
  const next = update(row, { status: "REJECTED" });
  notifyParties(next, "negotiation.rejected", `"${row.subject}" was rejected`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

/** The owner of either party approves exactly the offer that was accepted. */
export function humanApprove(ownerAgentId: string, id: string) {
  const row = find(id);
  if (!row || (row.initiatorId !== ownerAgentId && row.counterpartyId !== ownerAgentId)) throw notFound("negotiation");
  if (row.status !== "AWAITING_HUMAN_APPROVAL") throw invalidState(`the negotiation is ${row.status}, not AWAITING_HUMAN_APPROVAL`);
  if (row.acceptedOfferHash !== offerHash(row.currentOffer)) throw invalidState("the offer changed since it was accepted");
  const now = clock.nowMs();
  const next = update(row, { status: "ACCEPTED", approvedBy: ownerAgentId, approvedAt: now }, now);
  notifyParties(next, "negotiation.approved", `"${row.subject}" was approved by an owner`);
  return negotiationView(next);
}

/** Reads apply due expiries first (a write only when something is due). */
export async function getNegotiation(agentId: string, id: string) {
  await expireDue();
  const row = find(id);
  if (!row || (row.initiatorId !== agentId && row.counterpartyId !== agentId)) throw notFound("negotiation");
  return negotiationView(row);
}

export async function listNegotiations(agentId: string, filter: { status?: string; limit: number; offset: number }) {
  await expireDue();
  const conditions: SQL[] = [or(eq(negotiations.initiatorId, agentId), eq(negotiations.counterpartyId, agentId))!];
  if (filter.status) conditions.push(eq(negotiations.status, filter.status));
  const where = and(...conditions);
  const total = db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(negotiations).where(where).get()!.n;
  const rows = db.select().from(negotiations).where(where).orderBy(desc(negotiations.createdAt), desc(negotiations.id)).limit(filter.limit).offset(filter.offset).all();
  return { data: rows.map(negotiationView), total };
}

/** The job: every OPEN negotiation past its expiry becomes EXPIRED. */
export async function expireDue(): Promise<void> {
  const due = db.select({ id: negotiations.id }).from(negotiations).where(and(eq(negotiations.status, "OPEN"), lte(negotiations.expiresAt, clock.nowMs()))).all();
  if (due.length === 0) return;
  await write(() => {
    for (const { id } of due) {
      const row = find(id);
      if (row) expireIfDue(row);
    }
  });
}
