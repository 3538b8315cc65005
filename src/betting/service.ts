// Bets: both stakes sit in the parties' held accounts (ledger/escrow.ts) until the bet is settled,
// voided or expires. Every function here but the due work (expiry, oracles) and the reads is a write op.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso, isoOrNull } from "../clock";
import { find, insert, newestFirst, read, update, write, type PageWindow, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { type AgentId, prefixedId } from "../ids";
import { expireHold, hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { authorizeRelease, RELEASE_ERRORS } from "../outflows/release";
import { authorizeOutflow, NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { committingKeyId, untilCommittingKeyEnds } from "../keys/service";
import { HOUR_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { checkOracleSettings, consultOracle, type OracleType, type Outcome } from "./oracles";
import { bets } from "./schema";
import { jsonText, readJson } from "../json";

export { ORACLE_TYPES, OUTCOMES, type OracleType, type Outcome } from "./oracles";

type Bet = Row<typeof bets>;

const reference = (bet: { id: string }) => ({ type: "bet", id: bet.id });
const oracleOf = (row: Bet) => (row.oracle === null ? null : readJson(row.oracle));

export function betView(row: Bet) {
  const currency = row.currency;
  return {
    id: row.id,
    creatorId: row.creatorId,
    acceptorId: row.acceptorId,
    description: row.description,
    condition: row.condition,
    amount: toMajor(row.amount, currency),
    currency,
    oracleType: row.oracleType,
    oracle: oracleOf(row),
    status: row.status,
    creatorOutcome: row.creatorOutcome,
    acceptorOutcome: row.acceptorOutcome,
    outcome: row.outcome,
    winnerId: row.winnerId,
    resolvedBy: row.resolvedBy,
    expiresAt: iso(row.expiresAt),
    matchedAt: isoOrNull(row.matchedAt),
    closedAt: isoOrNull(row.closedAt),
    createdAt: iso(row.createdAt),
  };
}

const isParty = (bet: Bet, agentId: AgentId) => bet.creatorId === agentId || bet.acceptorId === agentId;
const isDue = (bet: Bet, now: number) => bet.status === "OPEN" && bet.expiresAt <= now;

/** What createBet answers: short of the stake, or refused by the outflow check. */
export const CREATE_BET_ERRORS = ["INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* createBet(
  creatorId: AgentId,
  body: { description: string; condition: string; amount: number; currency: Currency; oracleType?: OracleType; oracle?: Record<string, unknown>; expiresInHours?: number },
  sanction: Sanction = NO_SANCTION,
) {
  const amount = toMinor(body.amount, body.currency);
  const oracleType = body.oracleType ?? "MANUAL";
  if (oracleType === "MANUAL" && body.oracle !== undefined) throw invalid("oracle settings apply only to API and ORACLE_NET bets");
  if (oracleType !== "MANUAL" && body.oracle === undefined) throw invalid(`an ${oracleType} bet needs its oracle settings`);
  if (oracleType !== "MANUAL") checkOracleSettings(oracleType, body.oracle!);
  yield* authorizeOutflow({ agentId: creatorId, kind: "BET", amount, currency: body.currency, counterpartyId: null, terms: body }, sanction);
  const now = clock.nowMs();
  const row = yield* insert(bets, {
    id: prefixedId("bet"),
    creatorId,
    description: body.description,
    condition: body.condition,
    amount,
    currency: body.currency,
    oracleType,
    oracle: body.oracle === undefined ? null : jsonText(body.oracle),
    status: "OPEN",
    // Made with a restricted key, it stays open no longer than the key does (keys/commitments.ts).
    expiresAt: yield* untilCommittingKeyEnds(now + Math.round((body.expiresInHours ?? 24) * HOUR_MS)),
    creatorKeyId: yield* committingKeyId(),
    resolveAt: body.oracle === undefined ? null : resolveAtOf(body.oracle),
    createdAt: now,
  });
  yield* hold({ agentId: creatorId, amount, currency: body.currency, purpose: "BET_STAKE", reference: reference(row) });
  return betView(row);
}

/** What acceptBet answers: the bet unknown, one's own or no longer open, its creator blocking the caller, short of the stake, or refused by the outflow check. */
export const ACCEPT_BET_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* acceptBet(agentId: AgentId, betId: string, sanction: Sanction = NO_SANCTION) {
  const bet = yield* find(bets, betId, true);
  if (!bet) throw notFound("bet");
  if (bet.creatorId === agentId) throw invalid("you cannot accept your own bet");
  yield* assertNotBlockedBy(bet.creatorId, agentId);
  // A bet past its expiry is treated as expired even before the job has marked it.
  const status = isDue(bet, clock.nowMs()) ? "EXPIRED" : bet.status;
  if (status !== "OPEN") throw invalidState(`the bet is ${status}, no longer open`);
  const currency = bet.currency;
  yield* authorizeOutflow({ agentId, kind: "BET_ACCEPT", amount: bet.amount, currency, counterpartyId: bet.creatorId, terms: { betId } }, sanction);
  yield* hold({ agentId, amount: bet.amount, currency, purpose: "BET_STAKE", reference: reference(bet) });
  const matched = yield* update(bets, bet.id, { acceptorId: agentId, acceptorKeyId: yield* committingKeyId(), status: "MATCHED", matchedAt: clock.nowMs() });
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, creatorId: bet.creatorId, acceptorId: agentId, amount: stake, currency };
  yield* notifyFinancial(bet.creatorId, "bet.accepted", data, `Your bet was accepted: ${stake} ${currency} held from each side`);
  yield* notifyFinancial(agentId, "bet.accepted", data, `You accepted a bet: ${stake} ${currency} held`);
  return betView(matched);
}

/**
 * The creator withdraws its bet while nobody has taken it (the agent, or its owner from the console: a
 * frozen agent's too, since the stake only comes back): CANCELLED, the stake returned. 404 for anyone
 * else; 409 once it is taken, settled or expired.
 */
export function* cancelBet(creatorId: AgentId, betId: string) {
  const bet = yield* find(bets, betId, true);
  if (!bet || bet.creatorId !== creatorId) throw notFound("bet");
  // Past its expiry it is expired even before the job has marked it (applyBetDue, before this op, stores it).
  const status = isDue(bet, clock.nowMs()) ? "EXPIRED" : bet.status;
  if (status !== "OPEN") throw invalidState(`the bet is ${status}, no longer open`);
  yield* voidHold(yield* pendingHold(reference(bet), creatorId));
  const cancelled = yield* update(bets, bet.id, { status: "CANCELLED", closedAt: clock.nowMs() });
  const stake = toMajor(bet.amount, bet.currency);
  yield* notifyFinancial(creatorId, "bet.cancelled", { betId: bet.id, amount: stake, currency: bet.currency }, `Bet withdrawn untaken: ${stake} ${bet.currency} returned`);
  return betView(cancelled);
}

/** What reportOutcome answers: the bet unknown or not MATCHED, a report already made, or a concession refused (a release). */
export const REPORT_OUTCOME_ERRORS = ["NOT_FOUND", "INVALID_STATE", ...RELEASE_ERRORS] as const satisfies readonly ErrorCode[];

/** A party's report. The same report from both settles the bet; different reports dispute it. */
export function* reportOutcome(agentId: AgentId, betId: string, outcome: Outcome) {
  const bet = yield* find(bets, betId, true);
  if (!bet || !isParty(bet, agentId)) throw notFound("bet");
  if (bet.status !== "MATCHED") throw invalidState(`outcomes are reported on a MATCHED bet; this one is ${bet.status}`);
  const byCreator = bet.creatorId === agentId;
  if ((byCreator ? bet.creatorOutcome : bet.acceptorOutcome) !== null) throw invalidState("you have already reported an outcome");
  // Conceding decides that the reporter's stake goes to the other party: a release of it (outflows/release.ts).
  if (outcome === (byCreator ? "NOT_MET" : "MET")) {
    yield* authorizeRelease({ kind: "BET_CONCESSION", agentId, amount: bet.amount, currency: bet.currency, counterpartyId: byCreator ? bet.acceptorId : bet.creatorId, madeBy: byCreator ? bet.creatorKeyId : bet.acceptorKeyId });
  }
  const reported = yield* update(bets, bet.id, byCreator ? { creatorOutcome: outcome } : { acceptorOutcome: outcome });
  const other = byCreator ? bet.acceptorOutcome : bet.creatorOutcome;
  if (other === null) return betView(reported);
  if (other !== outcome) return betView(yield* update(bets, bet.id, { status: "DISPUTED" }));
  return betView(yield* settle(reported, outcome, "PARTIES"));
}

/** The operator's decision on a MATCHED or DISPUTED bet (e.g. one whose oracle gave no usable answer). */
export function* operatorResolve(betId: string, outcome: Outcome) {
  const bet = yield* find(bets, betId, true);
  if (!bet) throw notFound("bet");
  if (bet.status !== "MATCHED" && bet.status !== "DISPUTED") throw invalidState(`only a MATCHED or DISPUTED bet can be resolved; this one is ${bet.status}`);
  return betView(yield* settle(bet, outcome, "OPERATOR"));
}

/** MET: the creator wins the pot; NOT_MET: the acceptor; VOID: each stake goes back. */
function* settle(bet: Bet, outcome: Outcome, resolvedBy: "PARTIES" | "OPERATOR" | "ORACLE"): Op<Bet> {
  const currency = bet.currency;
  const acceptorId = bet.acceptorId!;
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, outcome, resolvedBy, amount: stake, currency };
  if (outcome === "VOID") {
    for (const party of [bet.creatorId, acceptorId]) {
      yield* voidHold(yield* pendingHold(reference(bet), party));
      yield* notifyFinancial(party, "bet.settled", { ...data, winnerId: null }, `Bet void: your ${stake} ${currency} stake was returned`);
    }
    return yield* update(bets, bet.id, { status: "VOID", outcome, resolvedBy, closedAt: clock.nowMs() });
  }
  const [winner, loser] = outcome === "MET" ? [bet.creatorId, acceptorId] : [acceptorId, bet.creatorId];
  yield* voidHold(yield* pendingHold(reference(bet), winner));
  yield* postHold(yield* pendingHold(reference(bet), loser), winner);
  yield* adjustScore(winner, "BET_WON", reference(bet));
  yield* notifyFinancial(winner, "bet.settled", { ...data, winnerId: winner }, `Bet won: +${stake} ${currency} (pot ${toMajor(bet.amount * 2n, currency)})`);
  yield* notifyFinancial(loser, "bet.settled", { ...data, winnerId: winner }, `Bet lost: your ${stake} ${currency} stake went to the winner`);
  return yield* update(bets, bet.id, { status: "SETTLED", outcome, winnerId: winner, resolvedBy, closedAt: clock.nowMs() });
}

function* expire(bet: Bet): Op<void> {
  const currency = bet.currency;
  yield* expireHold(yield* pendingHold(reference(bet), bet.creatorId));
  yield* update(bets, bet.id, { status: "EXPIRED", closedAt: bet.expiresAt });
  const stake = toMajor(bet.amount, currency);
  yield* notifyFinancial(bet.creatorId, "bet.expired", { betId: bet.id, amount: stake, currency }, `Bet expired unaccepted: ${stake} ${currency} returned`);
}

const resolveAtOf = (oracle: Record<string, unknown>) => Date.parse(String(oracle.resolveAt));

/**
 * A MATCHED API or ORACLE_NET bet whose resolveAt has come is settled by its oracle, read outside
 * any transaction; the settlement re-checks the bet under its lock. True if the bet was settled or
 * disputed. A bet whose resolve_at is earlier than its oracle's resolveAt (one migrated with a lower
 * bound) gets the exact time, so the job does not read it again before then.
 */
async function resolveIfDue(betId: string): Promise<boolean> {
  const bet = await read(find(bets, betId));
  if (bet?.status !== "MATCHED" || bet.oracleType === "MANUAL") return false;
  const oracle = oracleOf(bet) as Record<string, unknown>;
  const resolveAt = resolveAtOf(oracle);
  if (bet.resolveAt !== BigInt(resolveAt)) await write(() => update(bets, betId, { resolveAt }));
  const verdict = await consultOracle({ id: bet.id, oracleType: bet.oracleType, oracle });
  if (verdict === "wait") return false;
  return write(function* () {
    const current = yield* find(bets, bet.id, true);
    if (current?.status !== "MATCHED") return false;
    if (verdict === "dispute") yield* update(bets, current.id, { status: "DISPUTED" });
    else yield* settle(current, verdict, "ORACLE");
    return true;
  });
}

const dueOracles: DueWork = { name: "bets.oracles", table: "bets", where: "status = 'MATCHED'", dueColumn: "resolve_at", applyAcross: resolveIfDue };

/** The oracle job: MATCHED API and ORACLE_NET bets whose resolveAt has come (by the resolve_at index). */
export const resolveOracleBets = () => applyDue(dueOracles);

/** A write op: the bet expires if it is still OPEN past its expiry (locked: an accept racing it waits). */
function* expireIfDue(betId: string): Op<boolean> {
  const bet = yield* find(bets, betId, true);
  if (!bet || !isDue(bet, clock.nowMs())) return false;
  yield* expire(bet);
  return true;
}

const dueExpiries: DueWork = { name: "bets.expire", table: "bets", where: "status = 'OPEN'", dueColumn: "expires_at", apply: expireIfDue };

/**
 * Before an action on one bet: its due expiry committed in an op of its own (a read, and a
 * write only if due), so an action refused because the bet is past due leaves it stored as such.
 */
export const applyBetDue = (betId: string) => applyIfDue(dueExpiries, betId);

/** The expiry job (every bet), or the caller's own bets before they are listed. */
export const expireDueBets = (agentId?: AgentId) => applyDue(dueExpiries, agentId === undefined ? undefined : { where: "creator_id = ?", params: [agentId] });

/** Parties always see their bet; anyone may see an OPEN one, since it is listed publicly (the route applies its due expiry first). */
export function* getBet(agentId: AgentId, betId: string) {
  const bet = yield* find(bets, betId);
  if (!bet || (!isParty(bet, agentId) && bet.status !== "OPEN")) throw notFound("bet");
  return betView(bet);
}

/** OPEN bets the caller could accept: others' bets, not from creators who blocked the caller. */
export function openBets(agentId: AgentId, query: { currency?: Currency }, window: PageWindow) {
  const scope = {
    where: "status = 'OPEN' AND expires_at > ? AND creator_id <> ? AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = bets.creator_id AND blocked_id = ?)",
    params: [clock.nowMs(), agentId, agentId],
  };
  const narrow = query.currency ? { where: "currency = ?", params: [query.currency] } : undefined;
  return newestFirst({ table: bets, scope, narrow }, window, betView);
}

/** The caller's bets (the route applies its due expiries first: only a creator's OPEN bet expires). */
export function* myBets(agentId: AgentId, window: PageWindow) {
  return yield* newestFirst({ table: bets, scope: { where: "(creator_id = ? OR acceptor_id = ?)", params: [agentId, agentId] } }, window, betView);
}
