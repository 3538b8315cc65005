// Negotiations as their two parties see them: OPEN → (counter: the turn passes) → ACCEPTED |
// AWAITING_HUMAN_APPROVAL (src/negotiations/approvals.ts: → ACCEPTED); OPEN or AWAITING_HUMAN_APPROVAL
// → REJECTED; OPEN → EXPIRED at expiresAt (src/negotiations/expiry.ts). Only the party who did not
// make the current offer may counter or accept; either may reject. The pair limits (open ones,
// the counter cooldown) are counted from the database, so they hold across instances.
import { assertCanReach, assertNotBlockedBy } from "../agents/blocks";
import { lockAgents } from "../agents/service";
import { clock, iso } from "../clock";
import { find, FOR_UPDATE, get, insert, newestFirst, select, type PageWindow, type Op } from "../db";
import { ApiError, invalid, invalidState } from "../errors";
import { type AgentId, uuid } from "../ids";
import { HOUR_MS } from "../time";
import { emit } from "../webhooks/outbox";
import { expireIfDue, partyScope } from "./expiry";
import { change, historyOf, negotiationView, notifyParties, offerOf, otherParty, partyOnly, type Negotiation } from "./negotiation";
import { checkOffer, needsHuman, offerHash } from "./offers";
import { negotiations, type Offer } from "./schema";
import type { NegotiationStatus } from "./model";
import { jsonText } from "../json";

export const MAX_OPEN_PER_PAIR = 3;
export const COUNTER_COOLDOWN_MS = 30_000;
const LIVE: NegotiationStatus[] = ["OPEN", "AWAITING_HUMAN_APPROVAL"];
const LIVE_IN = `(${LIVE.map(() => "?").join(", ")})`;

const pairKey = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** A negotiation as its party sees it, locked, with its due expiry applied; anyone else gets 404. */
function* forParty(id: string, agentId: AgentId): Op<Negotiation> {
  return yield* expireIfDue(partyOnly(yield* find(negotiations, id, true), agentId));
}

export function* createNegotiation(
  initiatorId: AgentId,
  body: { counterpartyId: AgentId; subject: string; offer: Offer; relatedEntityType?: string; relatedEntityId?: string; expiresInHours?: number },
) {
  if (body.counterpartyId === initiatorId) throw invalid("you cannot negotiate with yourself");
  // The pair's limit holds across instances: creations for the same two agents run one at a time.
  yield* assertCanReach(body.counterpartyId, initiatorId, "counterparty agent", lockAgents([initiatorId, body.counterpartyId]));
  checkOffer(body.offer);
  const key = pairKey(initiatorId, body.counterpartyId);
  for (const live of yield* select(negotiations, `pair_key = ? AND status = 'OPEN' ${FOR_UPDATE}`, key)) yield* expireIfDue(live);
  const open = Number((yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM negotiations WHERE pair_key = ? AND status IN ${LIVE_IN}`, key, ...LIVE))!.n);
  if (open >= MAX_OPEN_PER_PAIR) throw new ApiError("PAIR_LIMIT_EXCEEDED", `at most ${MAX_OPEN_PER_PAIR} open negotiations between two agents`);
  const now = clock.nowMs();
  const row = yield* insert(negotiations, {
    id: uuid(),
    initiatorId,
    counterpartyId: body.counterpartyId,
    pairKey: key,
    subject: body.subject,
    status: "OPEN",
    currentOffer: jsonText(body.offer),
    offerBy: initiatorId,
    history: jsonText([]),
    relatedEntityType: body.relatedEntityType ?? null,
    relatedEntityId: body.relatedEntityId ?? null,
    expiresAt: now + Math.round((body.expiresInHours ?? 24) * HOUR_MS),
    createdAt: now,
    updatedAt: now,
  });
  yield* emit(
    row.counterpartyId,
    "negotiation.received",
    { negotiationId: row.id, initiatorId, subject: row.subject, offer: body.offer },
    { subject: `Negotiation: ${row.subject}`, body: `A new negotiation was started with you.` },
  );
  return negotiationView(row);
}

function assertTurn(row: Negotiation, agentId: AgentId): void {
  if (row.status !== "OPEN") throw invalidState(`the negotiation is ${row.status}`);
  if (row.offerBy === agentId) throw invalidState("it is the other party's turn: you made the current offer");
}

export function* counter(agentId: AgentId, id: string, offer: Offer) {
  // The cooldown is per pair: the pair is locked first (in the order creation locks it), then the row.
  const parties = yield* find(negotiations, id);
  if (parties) yield* lockAgents([parties.initiatorId, parties.counterpartyId]);
  const row = yield* forParty(id, agentId);
  assertTurn(row, agentId);
  yield* assertNotBlockedBy(otherParty(row, agentId), agentId);
  checkOffer(offer);
  const now = clock.nowMs();
  const last = (yield* get<{ at: bigint | null }>("SELECT MAX(last_counter_at) AS at FROM negotiations WHERE pair_key = ?", row.pairKey))!.at;
  if (last !== null && now - Number(last) < COUNTER_COOLDOWN_MS) {
    const retryAfterSeconds = Math.ceil((Number(last) + COUNTER_COOLDOWN_MS - now) / 1000);
    throw new ApiError("PAIR_LIMIT_EXCEEDED", `wait ${retryAfterSeconds} s: at most one counter-offer per 30 s between two agents`, { retryAfterSeconds });
  }
  const next = yield* change(row, {
    currentOffer: jsonText(offer),
    offerBy: agentId,
    history: jsonText([...historyOf(row), { by: agentId, offer, at: iso(now) }]),
    lastCounterAt: now,
  }, now);
  yield* notifyParties(next, "negotiation.countered", `Counter-offer on "${row.subject}"`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function* accept(agentId: AgentId, id: string) {
  const row = yield* forParty(id, agentId);
  assertTurn(row, agentId);
  yield* assertNotBlockedBy(otherParty(row, agentId), agentId);
  const now = clock.nowMs();
  const offer = offerOf(row);
  const human = needsHuman(offer);
  const next = yield* change(row, {
    status: human ? "AWAITING_HUMAN_APPROVAL" : "ACCEPTED",
    acceptedBy: agentId,
    acceptedAt: now,
    acceptedOfferHash: offerHash(offer),
  }, now);
  if (human) yield* notifyParties(next, "negotiation.awaiting_approval", `"${row.subject}" was accepted and needs an owner's approval`);
  else yield* notifyParties(next, "negotiation.accepted", `"${row.subject}" was accepted`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

export function* reject(agentId: AgentId, id: string) {
  const row = yield* forParty(id, agentId);
  if (!LIVE.includes(row.status)) throw invalidState(`the negotiation is ${row.status}`);
  const next = yield* change(row, { status: "REJECTED" });
  yield* notifyParties(next, "negotiation.rejected", `"${row.subject}" was rejected`, [otherParty(row, agentId)]);
  return negotiationView(next);
}

/** Reads apply due expiries first (a write only when something is due). */
/** A negotiation the caller takes part in (the route expires it first if due). */
export function* getNegotiation(agentId: AgentId, id: string) {
  return negotiationView(partyOnly(yield* find(negotiations, id), agentId));
}

/** The caller's negotiations (the route expires the due ones first). */
export function* listNegotiations(agentId: AgentId, filter: { status?: string }, window: PageWindow) {
  const narrow = filter.status ? { where: "status = ?", params: [filter.status] } : undefined;
  return yield* newestFirst({ table: negotiations, scope: partyScope(agentId), narrow }, window, negotiationView);
}
