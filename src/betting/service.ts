// Bets: both stakes sit in the parties' held accounts (ledger/escrow.ts) until the bet is settled,
// voided or expires. Every function here but the due work (expiry, oracles) and the reads is a write op.
import { assertNotBlockedBy } from "../agents/blocks";
import { clock, iso } from "../clock";
import { FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../db/due";
import { invalid, invalidState, notFound } from "../errors";
import { prefixedId } from "../ids";
import { expireHold, hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { authorizeOutflow, NO_SANCTION, type Sanction } from "../outflows/check";
import { HOUR_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { checkOracleSettings, consultOracle, type OracleType, type Outcome } from "./oracles";

export { ORACLE_TYPES, OUTCOMES, type OracleType, type Outcome } from "./oracles";

export type BetRow = {
  id: string;
  creatorId: string;
  acceptorId: string | null;
  description: string;
  condition: string;
  amount: bigint;
  currency: string;
  oracleType: string;
  /** JSON text. */
  oracle: string | null;
  status: string;
  creatorOutcome: string | null;
  acceptorOutcome: string | null;
  outcome: string | null;
  winnerId: string | null;
  resolvedBy: string | null;
  expiresAt: bigint;
  /** An API or ORACLE_NET bet's oracle.resolveAt (ms); null for MANUAL. */
  resolveAt: bigint | null;
  matchedAt: bigint | null;
  closedAt: bigint | null;
  createdAt: bigint;
};

const COLUMN: Record<keyof BetRow, string> = {
  id: "id",
  creatorId: "creator_id",
  acceptorId: "acceptor_id",
  description: "description",
  condition: "condition",
  amount: "amount",
  currency: "currency",
  oracleType: "oracle_type",
  oracle: "oracle",
  status: "status",
  creatorOutcome: "creator_outcome",
  acceptorOutcome: "acceptor_outcome",
  outcome: "outcome",
  winnerId: "winner_id",
  resolvedBy: "resolved_by",
  expiresAt: "expires_at",
  resolveAt: "resolve_at",
  matchedAt: "matched_at",
  closedAt: "closed_at",
  createdAt: "created_at",
};
const KEYS = Object.keys(COLUMN) as (keyof BetRow)[];
const COLUMNS = KEYS.map((key) => (COLUMN[key] === key ? key : `${COLUMN[key]} AS ${key}`)).join(", ");

const reference = (bet: { id: string }) => ({ type: "bet", id: bet.id });
const isoOrNull = (ms: bigint | null) => (ms === null ? null : iso(Number(ms)));
const oracleOf = (row: BetRow) => (row.oracle === null ? null : (JSON.parse(row.oracle) as Record<string, unknown>));

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
    oracle: oracleOf(row),
    status: row.status,
    creatorOutcome: row.creatorOutcome,
    acceptorOutcome: row.acceptorOutcome,
    outcome: row.outcome,
    winnerId: row.winnerId,
    resolvedBy: row.resolvedBy,
    expiresAt: iso(Number(row.expiresAt)),
    matchedAt: isoOrNull(row.matchedAt),
    closedAt: isoOrNull(row.closedAt),
    createdAt: iso(Number(row.createdAt)),
  };
}

const findBet = (id: string): Query<BetRow | null> => get<BetRow>(`SELECT ${COLUMNS} FROM bets WHERE id = ?`, id);
/** In a write op that changes the bet from what it read: the row, locked until the op commits. */
const lockBet = (id: string): Query<BetRow | null> => get<BetRow>(`SELECT ${COLUMNS} FROM bets WHERE id = ? ${FOR_UPDATE}`, id);

function* update(bet: BetRow, changes: Partial<BetRow>): Query<BetRow> {
  const keys = KEYS.filter((key) => changes[key] !== undefined);
  yield* run(`UPDATE bets SET ${keys.map((key) => `${COLUMN[key]} = ?`).join(", ")} WHERE id = ?`, ...keys.map((key) => changes[key]), bet.id);
  return { ...bet, ...changes };
}

const isParty = (bet: BetRow, agentId: string) => bet.creatorId === agentId || bet.acceptorId === agentId;
const isDue = (bet: BetRow, now: number) => bet.status === "OPEN" && Number(bet.expiresAt) <= now;

export function* createBet(
  creatorId: string,
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
  const row: BetRow = {
    id: prefixedId("bet"),
    creatorId,
    acceptorId: null,
    description: body.description,
    condition: body.condition,
    amount,
    currency: body.currency,
    oracleType,
    oracle: body.oracle === undefined ? null : JSON.stringify(body.oracle),
    status: "OPEN",
    creatorOutcome: null,
    acceptorOutcome: null,
    outcome: null,
    winnerId: null,
    resolvedBy: null,
    expiresAt: BigInt(now + Math.round((body.expiresInHours ?? 24) * HOUR_MS)),
    resolveAt: body.oracle === undefined ? null : BigInt(resolveAtOf(body.oracle)),
    matchedAt: null,
    closedAt: null,
    createdAt: BigInt(now),
  };
  yield* run(`INSERT INTO bets (${KEYS.map((key) => COLUMN[key]).join(", ")}) VALUES (${KEYS.map(() => "?").join(", ")})`, ...KEYS.map((key) => row[key]));
  yield* hold({ agentId: creatorId, amount, currency: body.currency, purpose: "BET_STAKE", reference: reference(row) });
  return betView(row);
}

export function* acceptBet(agentId: string, betId: string, sanction: Sanction = NO_SANCTION) {
  const bet = yield* lockBet(betId);
  if (!bet) throw notFound("bet");
  if (bet.creatorId === agentId) throw invalid("you cannot accept your own bet");
  yield* assertNotBlockedBy(bet.creatorId, agentId);
  // A bet past its expiry is treated as expired even before the job has marked it.
  const status = isDue(bet, clock.nowMs()) ? "EXPIRED" : bet.status;
  if (status !== "OPEN") throw invalidState(`the bet is ${status}, no longer open`);
  const currency = bet.currency as Currency;
  yield* authorizeOutflow({ agentId, kind: "BET_ACCEPT", amount: bet.amount, currency, counterpartyId: bet.creatorId, terms: { betId } }, sanction);
  yield* hold({ agentId, amount: bet.amount, currency, purpose: "BET_STAKE", reference: reference(bet) });
  const matched = yield* update(bet, { acceptorId: agentId, status: "MATCHED", matchedAt: BigInt(clock.nowMs()) });
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, creatorId: bet.creatorId, acceptorId: agentId, amount: stake, currency };
  yield* notifyFinancial(bet.creatorId, "bet.accepted", data, `Your bet was accepted: ${stake} ${currency} held from each side`);
  yield* notifyFinancial(agentId, "bet.accepted", data, `You accepted a bet: ${stake} ${currency} held`);
  return betView(matched);
}

/** A party's report. The same report from both settles the bet; different reports dispute it. */
export function* reportOutcome(agentId: string, betId: string, outcome: Outcome) {
  const bet = yield* lockBet(betId);
  if (!bet || !isParty(bet, agentId)) throw notFound("bet");
  if (bet.status !== "MATCHED") throw invalidState(`outcomes are reported on a MATCHED bet; this one is ${bet.status}`);
  const byCreator = bet.creatorId === agentId;
  if ((byCreator ? bet.creatorOutcome : bet.acceptorOutcome) !== null) throw invalidState("you have already reported an outcome");
  const reported = yield* update(bet, byCreator ? { creatorOutcome: outcome } : { acceptorOutcome: outcome });
  const other = byCreator ? bet.acceptorOutcome : bet.creatorOutcome;
  if (other === null) return betView(reported);
  if (other !== outcome) return betView(yield* update(reported, { status: "DISPUTED" }));
  return betView(yield* settle(reported, outcome, "PARTIES"));
}

/** The operator's decision on a MATCHED or DISPUTED bet (e.g. one whose oracle gave no usable answer). */
export function* operatorResolve(betId: string, outcome: Outcome) {
  const bet = yield* lockBet(betId);
  if (!bet) throw notFound("bet");
  if (bet.status !== "MATCHED" && bet.status !== "DISPUTED") throw invalidState(`only a MATCHED or DISPUTED bet can be resolved; this one is ${bet.status}`);
  return betView(yield* settle(bet, outcome, "OPERATOR"));
}

/** MET: the creator wins the pot; NOT_MET: the acceptor; VOID: each stake goes back. */
function* settle(bet: BetRow, outcome: Outcome, resolvedBy: "PARTIES" | "OPERATOR" | "ORACLE"): Query<BetRow> {
  const currency = bet.currency as Currency;
  const acceptorId = bet.acceptorId!;
  const stake = toMajor(bet.amount, currency);
  const data = { betId: bet.id, outcome, resolvedBy, amount: stake, currency };
  if (outcome === "VOID") {
    for (const party of [bet.creatorId, acceptorId]) {
      yield* voidHold(yield* pendingHold(reference(bet), party));
      yield* notifyFinancial(party, "bet.settled", { ...data, winnerId: null }, `Bet void: your ${stake} ${currency} stake was returned`);
    }
    return yield* update(bet, { status: "VOID", outcome, resolvedBy, closedAt: BigInt(clock.nowMs()) });
  }
  const [winner, loser] = outcome === "MET" ? [bet.creatorId, acceptorId] : [acceptorId, bet.creatorId];
  yield* voidHold(yield* pendingHold(reference(bet), winner));
  yield* postHold(yield* pendingHold(reference(bet), loser), winner);
  yield* adjustScore(winner, "BET_WON", reference(bet));
  yield* notifyFinancial(winner, "bet.settled", { ...data, winnerId: winner }, `Bet won: +${stake} ${currency} (pot ${toMajor(bet.amount * 2n, currency)})`);
  yield* notifyFinancial(loser, "bet.settled", { ...data, winnerId: winner }, `Bet lost: your ${stake} ${currency} stake went to the winner`);
  return yield* update(bet, { status: "SETTLED", outcome, winnerId: winner, resolvedBy, closedAt: BigInt(clock.nowMs()) });
}

function* expire(bet: BetRow): Query<void> {
  const currency = bet.currency as Currency;
  yield* expireHold(yield* pendingHold(reference(bet), bet.creatorId));
  yield* update(bet, { status: "EXPIRED", closedAt: bet.expiresAt });
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
  const bet = await read(findBet(betId));
  if (bet?.status !== "MATCHED" || bet.oracleType === "MANUAL") return false;
  const oracle = oracleOf(bet) as Record<string, unknown>;
  const resolveAt = resolveAtOf(oracle);
  if (bet.resolveAt !== BigInt(resolveAt)) await write(() => run("UPDATE bets SET resolve_at = ? WHERE id = ?", resolveAt, betId));
  const verdict = await consultOracle({ id: bet.id, oracleType: bet.oracleType as OracleType, oracle });
  if (verdict === "wait") return false;
  return write(function* () {
    const current = yield* lockBet(bet.id);
    if (current?.status !== "MATCHED") return false;
    if (verdict === "dispute") yield* update(current, { status: "DISPUTED" });
    else yield* settle(current, verdict, "ORACLE");
    return true;
  });
}

const dueOracles: DueWork = { name: "bets.oracles", table: "bets", where: "status = 'MATCHED'", dueColumn: "resolve_at", apply: resolveIfDue };

/** The oracle job: MATCHED API and ORACLE_NET bets whose resolveAt has come (by the resolve_at index). */
export const resolveOracleBets = () => applyDue(dueOracles);

/** A write op: the bet expires if it is still OPEN past its expiry (locked: an accept racing it waits). */
function* expireIfDue(betId: string): Query<boolean> {
  const bet = yield* lockBet(betId);
  if (!bet || !isDue(bet, clock.nowMs())) return false;
  yield* expire(bet);
  return true;
}

const dueExpiries: DueWork = { name: "bets.expire", table: "bets", where: "status = 'OPEN'", dueColumn: "expires_at", apply: (id) => write(() => expireIfDue(id)) };

/**
 * Before an action on one bet: its due expiry committed in an op of its own (a read, and a
 * write only if due), so an action refused because the bet is past due leaves it stored as such.
 */
export const applyBetDue = (betId: string) => applyIfDue(dueExpiries, betId);

/** The expiry job (every bet), or the caller's own bets before they are listed. */
export const expireDueBets = (agentId?: string) => applyDue(dueExpiries, agentId === undefined ? undefined : { where: "creator_id = ?", params: [agentId] });

/** Parties always see their bet; anyone may see an OPEN one, since it is listed publicly. Its due expiry is applied first. */
export async function getBet(agentId: string, betId: string) {
  await applyIfDue(dueExpiries, betId);
  const bet = await read(findBet(betId));
  if (!bet || (!isParty(bet, agentId) && bet.status !== "OPEN")) throw notFound("bet");
  return betView(bet);
}

/** OPEN bets the caller could accept: others' bets, not from creators who blocked the caller. */
export function openBets(agentId: string, query: { currency?: Currency }, window: PageWindow) {
  const scope = {
    where: "status = 'OPEN' AND expires_at > ? AND creator_id <> ? AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = bets.creator_id AND blocked_id = ?)",
    params: [clock.nowMs(), agentId, agentId],
  };
  const narrow = query.currency ? { where: "currency = ?", params: [query.currency] } : undefined;
  return newestFirst({ table: "bets", columns: COLUMNS, scope, narrow }, window, betView);
}

/** The caller's bets, its due expiries applied first (only a creator's OPEN bet expires). */
export async function myBets(agentId: string, window: PageWindow) {
  await expireDueBets(agentId);
  return read(newestFirst({ table: "bets", columns: COLUMNS, scope: { where: "(creator_id = ? OR acceptor_id = ?)", params: [agentId, agentId] } }, window, betView));
}
