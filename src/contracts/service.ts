// Conditional contracts: the creator's escrow sits in its held account (ledger/escrow.ts) until every
// condition is confirmed (paid to the counterparty) or the contract ends otherwise (returned).
// Every function here but the deadline work and the reads runs inside a write op.
import { assertNotBlockedBy } from "../agents/blocks";
import { findAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { FOR_UPDATE, get, newestFirst, read, run, write, type PageWindow, type Query } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../db/due";
import { forbidden, invalid, invalidState, notFound } from "../errors";
import { uuid } from "../ids";
import { expireHold, hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { authorizeOutflow, NO_SANCTION, type Sanction } from "../outflows/check";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import type { ContractCondition } from "./schema";

export type ContractRow = {
  id: string;
  creatorId: string;
  counterpartyId: string;
  title: string;
  description: string;
  escrowAmount: bigint;
  currency: string;
  conditions: ContractCondition[];
  deadlineDays: number;
  deadlineAt: number;
  status: string;
  signedAt: number | null;
  closedAt: number | null;
  createdAt: number;
};
/** As stored: every INTEGER arrives as a bigint, the conditions as JSON text. */
type StoredContract = Omit<ContractRow, "conditions" | "deadlineDays" | "deadlineAt" | "signedAt" | "closedAt" | "createdAt"> & {
  conditions: string;
  deadlineDays: bigint;
  deadlineAt: bigint;
  signedAt: bigint | null;
  closedAt: bigint | null;
  createdAt: bigint;
};
type ConditionInput = Omit<ContractCondition, "fulfilledAt">;

const reference = (contract: { id: string }) => ({ type: "contract", id: contract.id });
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const numberOrNull = (value: bigint | null) => (value === null ? null : Number(value));

const COLUMNS = `id, creator_id AS creatorId, counterparty_id AS counterpartyId, title, description, escrow_amount AS escrowAmount,
  currency, conditions, deadline_days AS deadlineDays, deadline_at AS deadlineAt, status, signed_at AS signedAt,
  closed_at AS closedAt, created_at AS createdAt`;

const toContract = (row: StoredContract): ContractRow => ({
  ...row,
  conditions: JSON.parse(row.conditions) as ContractCondition[],
  deadlineDays: Number(row.deadlineDays),
  deadlineAt: Number(row.deadlineAt),
  signedAt: numberOrNull(row.signedAt),
  closedAt: numberOrNull(row.closedAt),
  createdAt: Number(row.createdAt),
});

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

/** `lock`: in a write op that changes the contract from what it read (see db/postgres.ts). */
function* findContract(id: string, lock = false): Query<ContractRow | undefined> {
  const row = yield* get<StoredContract>(`SELECT ${COLUMNS} FROM contracts WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
  return row ? toContract(row) : undefined;
}

/** The changes a contract goes through: its status, conditions, signedAt and closedAt. */
function* update(contract: ContractRow, changes: Partial<ContractRow>): Query<ContractRow> {
  const next = { ...contract, ...changes };
  yield* run(
    "UPDATE contracts SET status = ?, conditions = ?, signed_at = ?, closed_at = ? WHERE id = ?",
    next.status,
    JSON.stringify(next.conditions),
    next.signedAt,
    next.closedAt,
    contract.id,
  );
  return next;
}

/** The contract if the caller is one of its parties; 404 for anyone else (existence is not revealed). */
function* partyContract(agentId: string, id: string, lock = false): Query<ContractRow> {
  const contract = yield* findContract(id, lock);
  if (!contract || (contract.creatorId !== agentId && contract.counterpartyId !== agentId)) throw notFound("contract");
  return contract;
}

/** The status with the deadline applied, for an action racing the deadline job. */
function statusAt(contract: ContractRow, now: number): string {
  if (contract.deadlineAt > now) return contract.status;
  if (contract.status === "PENDING_SIGNATURE") return "EXPIRED";
  return contract.status === "ACTIVE" ? "BREACHED" : contract.status;
}

function* notifyBoth(contract: ContractRow, kind: string, summary: string, extra: Record<string, unknown> = {}): Query<void> {
  const currency = contract.currency as Currency;
  const data = { contractId: contract.id, creatorId: contract.creatorId, counterpartyId: contract.counterpartyId, escrowAmount: toMajor(contract.escrowAmount, currency), currency, ...extra };
  for (const party of [contract.creatorId, contract.counterpartyId]) yield* notifyFinancial(party, kind, data, `${summary}: ${contract.title}`);
}

const escrowHold = (contract: ContractRow): Query<bigint> => pendingHold(reference(contract), contract.creatorId);

export function* createContract(
  creatorId: string,
  body: { counterpartyId: string; title: string; description: string; escrowAmount: number; currency: Currency; conditions: ConditionInput[]; deadlineDays?: number },
  sanction: Sanction = NO_SANCTION,
) {
  if (body.counterpartyId === creatorId) throw invalid("you cannot make a contract with yourself");
  if (new Set(body.conditions.map((condition) => condition.id)).size !== body.conditions.length) throw invalid("condition ids must be unique");
  const amount = toMinor(body.escrowAmount, body.currency, "escrowAmount");
  if (!(yield* findAgent(body.counterpartyId))) throw notFound("counterparty agent");
  yield* assertNotBlockedBy(body.counterpartyId, creatorId);
  yield* authorizeOutflow({ agentId: creatorId, kind: "CONTRACT", amount, currency: body.currency, counterpartyId: body.counterpartyId, terms: body }, sanction);
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
  yield* run(
    `INSERT INTO contracts (id, creator_id, counterparty_id, title, description, escrow_amount, currency, conditions, deadline_days, deadline_at, status, signed_at, closed_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    row.id,
    row.creatorId,
    row.counterpartyId,
    row.title,
    row.description,
    row.escrowAmount,
    row.currency,
    JSON.stringify(row.conditions),
    row.deadlineDays,
    row.deadlineAt,
    row.status,
    row.signedAt,
    row.closedAt,
    row.createdAt,
  );
  yield* hold({ agentId: creatorId, amount, currency: body.currency, purpose: "CONTRACT_ESCROW", reference: reference(row) });
  // Not a movement of the counterparty's money, but its only way to learn it has something to sign.
  yield* notifyFinancial(body.counterpartyId, "contract.proposed", { contractId: row.id, creatorId, escrowAmount: body.escrowAmount, currency: body.currency }, `Contract to sign: ${row.title}`);
  return contractView(row);
}

export function* signContract(agentId: string, id: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.counterpartyId !== agentId) throw forbidden("only the counterparty signs a contract");
  yield* assertNotBlockedBy(contract.creatorId, agentId);
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be signed; this one is ${status}`);
  const signed = yield* update(contract, { status: "ACTIVE", signedAt: clock.nowMs() });
  yield* notifyBoth(signed, "contract.signed", "Contract signed and active");
  return contractView(signed);
}

export function* fulfillCondition(agentId: string, id: string, conditionId: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.creatorId !== agentId) throw forbidden("only the creator confirms a condition");
  const now = clock.nowMs();
  const status = statusAt(contract, now);
  if (status !== "ACTIVE") throw invalidState(`conditions are confirmed on an ACTIVE contract; this one is ${status}`);
  const condition = contract.conditions.find((candidate) => candidate.id === conditionId);
  if (!condition) throw notFound("condition");
  if (condition.fulfilledAt !== null) throw invalidState("this condition is already confirmed");
  const conditions = contract.conditions.map((candidate) => (candidate.id === conditionId ? { ...candidate, fulfilledAt: now } : candidate));
  if (conditions.some((candidate) => candidate.fulfilledAt === null)) return contractView(yield* update(contract, { conditions }));
  yield* postHold(yield* escrowHold(contract), contract.counterpartyId);
  yield* adjustScore(contract.counterpartyId, "CONTRACT_FULFILLED", reference(contract));
  const fulfilled = yield* update(contract, { conditions, status: "FULFILLED", closedAt: now });
  yield* notifyBoth(fulfilled, "contract.fulfilled", "Contract fulfilled, escrow paid to the counterparty");
  return contractView(fulfilled);
}

export function* cancelContract(agentId: string, id: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.creatorId !== agentId) throw forbidden("only the creator cancels a contract");
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be cancelled; this one is ${status}`);
  yield* voidHold(yield* escrowHold(contract));
  const cancelled = yield* update(contract, { status: "CANCELLED", closedAt: clock.nowMs() });
  yield* notifyBoth(cancelled, "contract.cancelled", "Contract cancelled, escrow returned to the creator");
  return contractView(cancelled);
}

/** At the deadline: unsigned → EXPIRED, signed with open conditions → BREACHED; the escrow goes back. */
function* applyDeadline(contract: ContractRow): Query<void> {
  yield* expireHold(yield* escrowHold(contract));
  if (contract.status === "PENDING_SIGNATURE") {
    yield* notifyBoth(yield* update(contract, { status: "EXPIRED", closedAt: contract.deadlineAt }), "contract.expired", "Contract expired unsigned, escrow returned to the creator");
    return;
  }
  yield* adjustScore(contract.counterpartyId, "CONTRACT_BREACHED", reference(contract));
  yield* notifyBoth(yield* update(contract, { status: "BREACHED", closedAt: contract.deadlineAt }), "contract.breached", "Contract breached at its deadline, escrow returned to the creator");
}

/** A write op: the contract's deadline is applied if it is still due (locked: an action racing it waits). */
function* applyDeadlineIfDue(id: string): Query<boolean> {
  const contract = yield* findContract(id, true);
  if (!contract || contract.deadlineAt > clock.nowMs() || !["PENDING_SIGNATURE", "ACTIVE"].includes(contract.status)) return false;
  yield* applyDeadline(contract);
  return true;
}

const dueDeadlines: DueWork = {
  name: "contracts.deadline",
  table: "contracts",
  where: "status IN ('PENDING_SIGNATURE', 'ACTIVE')",
  dueColumn: "deadline_at",
  apply: (id) => write(() => applyDeadlineIfDue(id)),
};

/**
 * Before an action on one contract: its due deadline committed in an op of its own (a read, and a
 * write only if due), so an action refused because the contract is past due leaves it stored as such.
 */
export const applyContractDue = (id: string) => applyIfDue(dueDeadlines, id);

/** The deadline job (every contract), or the caller's own contracts before they are listed. */
export const applyDueDeadlines = (agentId?: string) =>
  applyDue(dueDeadlines, agentId === undefined ? undefined : { where: "(creator_id = ? OR counterparty_id = ?)", params: [agentId, agentId] });

/** A contract the caller is a party to, its due deadline applied first. */
export async function getContract(agentId: string, id: string) {
  await applyIfDue(dueDeadlines, id);
  return contractView(await read(partyContract(agentId, id)));
}

export async function myContracts(agentId: string, window: PageWindow) {
  await applyDueDeadlines(agentId);
  const where = "(creator_id = ? OR counterparty_id = ?)";
  return read(newestFirst({ table: "contracts", columns: COLUMNS, scope: { where, params: [agentId, agentId] } }, window, (row: StoredContract) => contractView(toContract(row))));
}
