// Bets: both stakes sit in the parties' held accounts (ledger/escrow.ts) until the bet is settled,
// voided or expires. Every function here but settleDueBets runs inside write().
import { and, desc, eq, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { assertNotBlockedBy } from "../agents/blocks";
import { getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { db, write } from "../db";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { hold, release } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../reputation/score";
import { assertWithinTier } from "../reputation/tiers";
import { notifyFinancial } from "../webhooks/outbox";
import { checkOracleSettings, consultOracle } from "./oracles";
import { bets } from "./schema";

export const ORACLE_TYPES = ["MANUAL", "API", "ORACLE_NET"] as const;
export const OUTCOMES = ["MET", "NOT_MET", "VOID"] as const;
export type OracleType = (typeof ORACLE_TYPES)[number];
export type Outcome = (typeof OUTCOMES)[number];
export type BetRow = typeof bets.$inferSelect;

const HOUR_MS = 3_600_000;

const reference = (bet: { id: string }) => ({ type: "bet", id: bet.id });
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function betView(row: BetRow) {
  const currency = row.currency as Currency;
  return {
    id: row.id,
    creatorId: row.creatorId,
    acceptorId: row.acceptorId,
    description: row.description,
    condition: row.condition,
    amount: toMajor(row.amount, currency),
    currency,
    oracleType: row.oracleType as OracleType,
    oracle: row.oracle,
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

const findBet = (id: string): BetRow | undefined => db.select().from(bets).where(eq(bets.id, id)).get();

function update(bet: BetRow, changes: Partial<BetRow>): BetRow {
  db.update(bets).set(changes).where(eq(bets.id, bet.id)).run();
  return { ...bet, ...changes };
}

const isParty = (bet: BetRow, agentId: string) => bet.creatorId === agentId || bet.acceptorId === agentId;
const isDue = (bet: BetRow, now: number) => bet.status === "OPEN" && bet.expiresAt <= now;

export function createBet(
  creatorId: string,
  body: { description: string; condition: string; amount: number; currency: Currency; oracleType?: OracleType; oracle?: Record<string, unknown>; expiresInHours?: number },
) {
  const amount = toMinor(body.amount, body.currency);
  const oracleType = body.oracleType ?? "MANUAL";
  if (oracleType === "MANUAL" && body.oracle !== undefined) throw invalid("oracle settings apply only to API and ORACLE_NET bets");
  if (oracleType !== "MANUAL" && body.oracle === undefined) throw invalid(`an ${oracleType} bet needs its oracle settings`);
  if (oracleType !== "MANUAL") checkOracleSettings(oracleType, body.oracle!);
  assertWithinTier(Number(getAgent(creatorId).score), amount, body.currency);
  const now = clock.nowMs();
  const row: BetRow = {
    id: prefixedId("bet"),
    creatorId,
    acceptorId: null,
    description: body.description,
    condition: body.condition,
    amount,
    currency: body.currency,
    oracleType,
    oracle: body.oracle ?? null,
    status: "OPEN",
    creatorOutcome: null,
    acceptorOutcome: null,
    outcome: null,
    winnerId: null,
    resolvedBy: null,
    expiresAt: now + Math.round((body.expiresInHours ?? 24) * HOUR_MS),
    matchedAt: null,
    closedAt: null,
    createdAt: now,
  };
  db.insert(bets).values(row).run();
  hold(creatorId, amount, body.currency, reference(row));
  return betView(row);
}

export function acceptBet(agentId: string, betId: string) {
  const bet = findBet(betId);
  if (!bet) throw notFound("bet");
  if (bet.creatorId === agentId) throw invalid("you cannot accept your own bet");
  assertNotBlockedBy(bet.creatorId, agentId);
  // A bet past its expiry is treated as expired even before the job has marked it.
  const status = isDue(bet, clock.nowMs()) ? "EXPIRED" : bet.status;
  if (status !== "OPEN") throw invalidState(`the bet is ${status}, no longer open`);
  const currency = bet.currency as Currency;
  assertWithinTier(Number(getAgent(agentId).score), bet.amount, currency);
  hold(agentId, bet.amount, currency, reference(bet));
  const matched = update(bet, { acceptorId: agentId, status: "MATCHED", matchedAt: clock.nowMs() });
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, creatorId: bet.creatorId, acceptorId: agentId, amount: stake, currency };
  notifyFinancial(bet.creatorId, "bet.accepted", data, `Your bet was accepted: ${stake} ${currency} held from each side`);
  notifyFinancial(agentId, "bet.accepted", data, `You accepted a bet: ${stake} ${currency} held`);
  return betView(matched);
}

/** A party's report. The same report from both settles the bet; different reports dispute it. */
export function reportOutcome(agentId: string, betId: string, outcome: Outcome) {
  const bet = findBet(betId);
  if (!bet || !isParty(bet, agentId)) throw notFound("bet");
  if (bet.status !== "MATCHED") throw invalidState(`outcomes are reported on a MATCHED bet; this one is ${bet.status}`);
  const byCreator = bet.creatorId === agentId;
  if ((byCreator ? bet.creatorOutcome : bet.acceptorOutcome) !== null) throw invalidState("you have already reported an outcome");
  const reported = update(bet, byCreator ? { creatorOutcome: outcome } : { acceptorOutcome: outcome });
  const other = byCreator ? bet.acceptorOutcome : bet.creatorOutcome;
  if (other === null) return betView(reported);
  if (other !== outcome) return betView(update(reported, { status: "DISPUTED" }));
  return betView(settle(reported, outcome, "PARTIES"));
}

/** The operator's decision on a MATCHED or DISPUTED bet (e.g. one whose oracle gave no usable answer). */
export function operatorResolve(betId: string, outcome: Outcome) {
  const bet = findBet(betId);
  if (!bet) throw notFound("bet");
  if (bet.status !== "MATCHED" && bet.status !== "DISPUTED") throw invalidState(`only a MATCHED or DISPUTED bet can be resolved; this one is ${bet.status}`);
  return betView(settle(bet, outcome, "OPERATOR"));
}

/** MET: the creator wins the pot; NOT_MET: the acceptor; VOID: each stake goes back. */
function settle(bet: BetRow, outcome: Outcome, resolvedBy: "PARTIES" | "OPERATOR" | "ORACLE"): BetRow {
  const currency = bet.currency as Currency;
  const acceptorId = bet.acceptorId!;
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, outcome, resolvedBy, amount: stake, currency };
  if (outcome === "VOID") {
    for (const party of [bet.creatorId, acceptorId]) {
      release({ holder: party, to: party, amount: bet.amount, currency, reference: reference(bet) });
      notifyFinancial(party, "bet.settled", { ...data, winnerId: null }, `Bet void: your ${stake} ${currency} stake was returned`);
    }
    return update(bet, { status: "VOID", outcome, resolvedBy, closedAt: clock.nowMs() });
  }
  const [winner, loser] = outcome === "MET" ? [bet.creatorId, acceptorId] : [acceptorId, bet.creatorId];
  release({ holder: winner, to: winner, amount: bet.amount, currency, reference: reference(bet) });
  release({ holder: loser, to: winner, amount: bet.amount, currency, reference: reference(bet) });
  adjustScore(winner, "BET_WON", reference(bet));
  notifyFinancial(winner, "bet.settled", { ...data, winnerId: winner }, `Bet won: +${stake} ${currency} (pot ${toMajor(bet.amount * 2n, currency)})`);
  notifyFinancial(loser, "bet.settled", { ...data, winnerId: winner }, `Bet lost: your ${stake} ${currency} stake went to the winner`);
  return update(bet, { status: "SETTLED", outcome, winnerId: winner, resolvedBy, closedAt: clock.nowMs() });
}

function expire(bet: BetRow): void {
  const currency = bet.currency as Currency;
  release({ holder: bet.creatorId, to: bet.creatorId, amount: bet.amount, currency, reference: reference(bet) });
  update(bet, { status: "EXPIRED", closedAt: bet.expiresAt });
  const stake = toMajor(bet.amount, currency);
  notifyFinancial(bet.creatorId, "bet.expired", { betId: bet.id, amount: stake, currency }, `Bet expired unaccepted: ${stake} ${currency} returned`);
}

/** The oracle job: MATCHED API and ORACLE_NET bets whose resolveAt has come are settled by their oracle. */
export async function resolveOracleBets(): Promise<void> {
  const matched = db.select().from(bets).where(and(eq(bets.status, "MATCHED"), ne(bets.oracleType, "MANUAL"))).all();
  for (const bet of matched) {
    const verdict = await consultOracle({ id: bet.id, oracleType: bet.oracleType as OracleType, oracle: bet.oracle as Record<string, unknown> });
    if (verdict === "wait") continue;
    await write(() => {
      const current = findBet(bet.id);
      if (current?.status !== "MATCHED") return;
      if (verdict === "dispute") update(current, { status: "DISPUTED" });
      else settle(current, verdict, "ORACLE");
    });
  }
}

const dueWhere = (now: number) => and(eq(bets.status, "OPEN"), lte(bets.expiresAt, now));

/** Expires up to `batch` OPEN bets whose time has come; returns how many. */
export function expireDueBets(batch: number): number {
  const due = db.select().from(bets).where(dueWhere(clock.nowMs())).limit(batch).all();
  for (const bet of due) expire(bet);
  return due.length;
}

/** The expiry job, also run before reads and actions so no one sees or acts on a stale OPEN bet. */
export async function settleDueBets(): Promise<void> {
  const BATCH = 200;
  while (db.select({ id: bets.id }).from(bets).where(dueWhere(clock.nowMs())).limit(1).get()) {
    if ((await write(() => expireDueBets(BATCH))) < BATCH) return;
  }
}

/** Parties always see their bet; anyone may see an OPEN one, since it is listed publicly. */
export function getBet(agentId: string, betId: string) {
  const bet = findBet(betId);
  if (!bet || (!isParty(bet, agentId) && bet.status !== "OPEN")) throw notFound("bet");
  return betView(bet);
}

function pageOf(where: SQL | undefined, limit: number, offset: number) {
  const [{ total }] = db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(bets).where(where).all() as [{ total: number }];
  const rows = db.select().from(bets).where(where).orderBy(desc(bets.createdAt), desc(bets.id)).limit(limit).offset(offset).all();
  return { data: rows.map(betView), total };
}

/** OPEN bets the caller could accept: others' bets, not from creators who blocked the caller. */
export function openBets(agentId: string, query: { currency?: Currency; limit: number; offset: number }) {
  const where = and(
    eq(bets.status, "OPEN"),
    sql`${bets.expiresAt} > ${clock.nowMs()}`,
    ne(bets.creatorId, agentId),
    query.currency ? eq(bets.currency, query.currency) : undefined,
    sql`NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ${bets.creatorId} AND blocked_id = ${agentId})`,
  );
  return pageOf(where, query.limit, query.offset);
}

export function myBets(agentId: string, query: { limit: number; offset: number }) {
  return pageOf(or(eq(bets.creatorId, agentId), eq(bets.acceptorId, agentId)), query.limit, query.offset);
}
