// Conditional contracts: the creator's escrow sits in its held account (ledger/escrow.ts) until every
// condition is confirmed (paid to the counterparty) or the contract ends otherwise (returned).
// Every function here but settleDueContracts runs inside write().
import { and, desc, eq, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import { assertNotBlockedBy } from "../agents/blocks";
import { findAgent, getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { db, write } from "../db";
import { forbidden, invalid, invalidState, notFound } from "../errors";
import { uuid } from "../ids";
import { hold, release } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../reputation/score";
import { assertWithinTier } from "../reputation/tiers";
import { notifyFinancial } from "../webhooks/outbox";
import { contracts, type ContractCondition } from "./schema";

export type ContractRow = typeof contracts.$inferSelect;
type ConditionInput = Omit<ContractCondition, "fulfilledAt">;

const DAY_MS = 86_400_000;
const reference = (contract: { id: string }) => ({ type: "contract", id: contract.id });
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function contractView(row: ContractRow) {
  const currency = row.currency as Currency;
  return {
    id: row.id,
    creatorId: row.creatorId,
    counterpartyId: row.counterpartyId,
    title: row.title,
    description: row.description,
    escrowAmount: toMajor(row.escrowAmount, currency),
    currency,
    conditions: row.conditions.map((condition) => ({
      id: condition.id,
      type: condition.type,
      description: condition.description,
      params: condition.params,
      fulfilled: condition.fulfilledAt !== null,
      fulfilledAt: isoOrNull(condition.fulfilledAt),
    })),
    deadlineDays: row.deadlineDays,
    deadlineAt: iso(row.deadlineAt),
    status: row.status,
    signedAt: isoOrNull(row.signedAt),
    closedAt: isoOrNull(row.closedAt),
    createdAt: iso(row.createdAt),
  };
}

const findContract = (id: string): ContractRow | undefined => db.select().from(contracts).where(eq(contracts.id, id)).get();

function update(contract: ContractRow, changes: Partial<ContractRow>): ContractRow {
  db.update(contracts).set(changes).where(eq(contracts.id, contract.id)).run();
  return { ...contract, ...changes };
}

/** The contract if the caller is one of its parties; 404 for anyone else (existence is not revealed). */
function partyContract(agentId: string, id: string): ContractRow {
  const contract = findContract(id);
  if (!contract || (contract.creatorId !== agentId && contract.counterpartyId !== agentId)) throw notFound("contract");
  return contract;
}

/** The status with the deadline applied, for an action racing the deadline job. */
function statusAt(contract: ContractRow, now: number): string {
  if (contract.deadlineAt > now) return contract.status;
  if (contract.status === "PENDING_SIGNATURE") return "EXPIRED";
  return contract.status === "ACTIVE" ? "BREACHED" : contract.status;
}

function notifyBoth(contract: ContractRow, kind: string, summary: string, extra: Record<string, unknown> = {}): void {
  const currency = contract.currency as Currency;
  const data = { contractId: contract.id, creatorId: contract.creatorId, counterpartyId: contract.counterpartyId, escrowAmount: toMajor(contract.escrowAmount, currency), currency, ...extra };
  for (const party of [contract.creatorId, contract.counterpartyId]) notifyFinancial(party, kind, data, `${summary}: ${contract.title}`);
}

const returnEscrow = (contract: ContractRow) =>
  release({ holder: contract.creatorId, to: contract.creatorId, amount: contract.escrowAmount, currency: contract.currency as Currency, reference: reference(contract) });

export function createContract(
  creatorId: string,
  body: { counterpartyId: string; title: string; description: string; escrowAmount: number; currency: Currency; conditions: ConditionInput[]; deadlineDays?: number },
) {
  if (body.counterpartyId === creatorId) throw invalid("you cannot make a contract with yourself");
  if (new Set(body.conditions.map((condition) => condition.id)).size !== body.conditions.length) throw invalid("condition ids must be unique");
  const amount = toMinor(body.escrowAmount, body.currency, "escrowAmount");
  if (!findAgent(body.counterpartyId)) throw notFound("counterparty agent");
  assertNotBlockedBy(body.counterpartyId, creatorId);
  assertWithinTier(Number(getAgent(creatorId).score), amount, body.currency);
  const now = clock.nowMs();
  const deadlineDays = body.deadlineDays ?? 30;
  const row: ContractRow = {
    id: uuid(),
    creatorId,
    counterpartyId: body.counterpartyId,
    title: body.title,
    description: body.description,
    escrowAmount: amount,
    currency: body.currency,
    conditions: body.conditions.map(({ id, type, description, params }) => ({ id, type, description, params, fulfilledAt: null })),
    deadlineDays,
    deadlineAt: now + deadlineDays * DAY_MS,
    status: "PENDING_SIGNATURE",
    signedAt: null,
    closedAt: null,
    createdAt: now,
  };
  db.insert(contracts).values(row).run();
  hold(creatorId, amount, body.currency, reference(row));
  // Not a movement of the counterparty's money, but its only way to learn it has something to sign.
  notifyFinancial(body.counterpartyId, "contract.proposed", { contractId: row.id, creatorId, escrowAmount: body.escrowAmount, currency: body.currency }, `Contract to sign: ${row.title}`);
  return contractView(row);
}

export function signContract(agentId: string, id: string) {
  const contract = partyContract(agentId, id);
  if (contract.counterpartyId !== agentId) throw forbidden("only the counterparty signs a contract");
  assertNotBlockedBy(contract.creatorId, agentId);
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be signed; this one is ${status}`);
  const signed = update(contract, { status: "ACTIVE", signedAt: clock.nowMs() });
  notifyBoth(signed, "contract.signed", "Contract signed and active");
  return contractView(signed);
}

export function fulfillCondition(agentId: string, id: string, conditionId: string) {
  const contract = partyContract(agentId, id);
  if (contract.creatorId !== agentId) throw forbidden("only the creator confirms a condition");
  const now = clock.nowMs();
  const status = statusAt(contract, now);
  if (status !== "ACTIVE") throw invalidState(`conditions are confirmed on an ACTIVE contract; this one is ${status}`);
  const condition = contract.conditions.find((candidate) => candidate.id === conditionId);
  if (!condition) throw notFound("condition");
  if (condition.fulfilledAt !== null) throw invalidState("this condition is already confirmed");
  const conditions = contract.conditions.map((candidate) => (candidate.id === conditionId ? { ...candidate, fulfilledAt: now } : candidate));
  if (conditions.some((candidate) => candidate.fulfilledAt === null)) return contractView(update(contract, { conditions }));
  release({ holder: contract.creatorId, to: contract.counterpartyId, amount: contract.escrowAmount, currency: contract.currency as Currency, reference: reference(contract) });
  adjustScore(contract.counterpartyId, "CONTRACT_FULFILLED", reference(contract));
  const fulfilled = update(contract, { conditions, status: "FULFILLED", closedAt: now });
  notifyBoth(fulfilled, "contract.fulfilled", "Contract fulfilled, escrow paid to the counterparty");
  return contractView(fulfilled);
}

export function cancelContract(agentId: string, id: string) {
  const contract = partyContract(agentId, id);
  if (contract.creatorId !== agentId) throw forbidden("only the creator cancels a contract");
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be cancelled; this one is ${status}`);
  returnEscrow(contract);
  const cancelled = update(contract, { status: "CANCELLED", closedAt: clock.nowMs() });
  notifyBoth(cancelled, "contract.cancelled", "Contract cancelled, escrow returned to the creator");
  return contractView(cancelled);
}

/** At the deadline: unsigned → EXPIRED, signed with open conditions → BREACHED; the escrow goes back. */
function applyDeadline(contract: ContractRow): void {
  returnEscrow(contract);
  if (contract.status === "PENDING_SIGNATURE") {
    notifyBoth(update(contract, { status: "EXPIRED", closedAt: contract.deadlineAt }), "contract.expired", "Contract expired unsigned, escrow returned to the creator");
    return;
  }
  adjustScore(contract.counterpartyId, "CONTRACT_BREACHED", reference(contract));
  notifyBoth(update(contract, { status: "BREACHED", closedAt: contract.deadlineAt }), "contract.breached", "Contract breached at its deadline, escrow returned to the creator");
}

const dueWhere = (now: number) => and(inArray(contracts.status, ["PENDING_SIGNATURE", "ACTIVE"]), lte(contracts.deadlineAt, now));

/** Applies the deadline of up to `batch` due contracts; returns how many. */
export function applyDueDeadlines(batch: number): number {
  const due = db.select().from(contracts).where(dueWhere(clock.nowMs())).limit(batch).all();
  for (const contract of due) applyDeadline(contract);
  return due.length;
}

/** The deadline job, also run before reads and actions so no one sees or acts on a stale contract. */
export async function settleDueContracts(): Promise<void> {
  const BATCH = 200;
  while (db.select({ id: contracts.id }).from(contracts).where(dueWhere(clock.nowMs())).limit(1).get()) {
    if ((await write(() => applyDueDeadlines(BATCH))) < BATCH) return;
  }
}

export function getContract(agentId: string, id: string) {
  return contractView(partyContract(agentId, id));
}

export function myContracts(agentId: string, query: { limit: number; offset: number }) {
  const where: SQL | undefined = or(eq(contracts.creatorId, agentId), eq(contracts.counterpartyId, agentId));
  const [{ total }] = db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(contracts).where(where).all() as [{ total: number }];
  const rows = db.select().from(contracts).where(where).orderBy(desc(contracts.createdAt), desc(contracts.id)).limit(query.limit).offset(query.offset).all();
  return { data: rows.map(contractView), total };
}
