// Conditional contracts: the creator's escrow sits in its held account (ledger/escrow.ts) until every
// condition is confirmed (paid to the counterparty) or the contract ends otherwise (returned).
// Every function here but the deadline work and the reads runs inside a write op.
import { assertCanReach, assertNotBlockedBy } from "../agents/blocks";
import { findAgent } from "../agents/service";
import { clock, iso, isoOrNull } from "../clock";
import { find, insert, newestFirst, update, type PageWindow, type Op, type Row } from "../db";
import { applyDue, applyIfDue, type DueWork } from "../due";
import { forbidden, invalid, invalidState, notFound, type ErrorCode } from "../errors";
import { type AgentId, uuid } from "../ids";
import { expireHold, hold, pendingHold, postHold, voidHold } from "../ledger/escrow";
import { toMajor, toMinor, type Currency } from "../money";
import { adjustScore } from "../agents/score";
import { committingKeyId } from "../keys/service";
import { authorizeRelease, RELEASE_ERRORS } from "../outflows/release";
import { authorizeOutflow, NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { DAY_MS } from "../time";
import { notifyFinancial } from "../webhooks/outbox";
import { contracts, type ContractCondition } from "./schema";
import { jsonText, readJson } from "../json";

type Contract = Row<typeof contracts>;
type ConditionInput = Omit<ContractCondition, "fulfilledAt">;

const reference = (contract: { id: string }) => ({ type: "contract", id: contract.id });
/** The conditions, stored as JSON. */
const conditionsOf = (contract: Contract) => readJson(contract.conditions);

export function contractView(row: Contract) {
  const currency = row.currency;
  return {
    id: row.id,
    creatorId: row.creatorId,
    counterpartyId: row.counterpartyId,
    title: row.title,
    description: row.description,
    escrowAmount: toMajor(row.escrowAmount, currency),
    currency,
    conditions: conditionsOf(row).map((condition) => ({
      id: condition.id,
      type: condition.type,
      description: condition.description,
      params: condition.params,
      fulfilled: condition.fulfilledAt !== null,
      fulfilledAt: isoOrNull(condition.fulfilledAt),
    })),
    deadlineDays: Number(row.deadlineDays),
    deadlineAt: iso(row.deadlineAt),
    status: row.status,
    signedAt: isoOrNull(row.signedAt),
    closedAt: isoOrNull(row.closedAt),
    createdAt: iso(row.createdAt),
  };
}

/** The contract if the caller is one of its parties; 404 for anyone else (existence is not revealed). */
function* partyContract(agentId: AgentId, id: string, lock = false): Op<Contract> {
  const contract = yield* find(contracts, id, lock);
  if (!contract || (contract.creatorId !== agentId && contract.counterpartyId !== agentId)) throw notFound("contract");
  return contract;
}

/** The status with the deadline applied, for an action racing the deadline job. */
function statusAt(contract: Contract, now: number): string {
  if (contract.deadlineAt > now) return contract.status;
  if (contract.status === "PENDING_SIGNATURE") return "EXPIRED";
  return contract.status === "ACTIVE" ? "BREACHED" : contract.status;
}

function* notifyBoth(contract: Contract, kind: string, summary: string, extra: Record<string, unknown> = {}): Op<void> {
  const currency = contract.currency;
  const data = { contractId: contract.id, creatorId: contract.creatorId, counterpartyId: contract.counterpartyId, escrowAmount: toMajor(contract.escrowAmount, currency), currency, ...extra };
  for (const party of [contract.creatorId, contract.counterpartyId]) yield* notifyFinancial(party, kind, data, `${summary}: ${contract.title}`);
}

const escrowHold = (contract: Contract): Op<bigint> => pendingHold(reference(contract), contract.creatorId);

/** What createContract answers: the counterparty unknown (or the creator itself, or blocking it), short of the escrow, or refused by the outflow check. */
export const CREATE_CONTRACT_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

export function* createContract(
  creatorId: AgentId,
  body: { counterpartyId: AgentId; title: string; description: string; escrowAmount: number; currency: Currency; conditions: ConditionInput[]; deadlineDays?: number },
  sanction: Sanction = NO_SANCTION,
) {
  if (body.counterpartyId === creatorId) throw invalid("you cannot make a contract with yourself");
  if (new Set(body.conditions.map((condition) => condition.id)).size !== body.conditions.length) throw invalid("condition ids must be unique");
  const amount = toMinor(body.escrowAmount, body.currency, "escrowAmount");
  yield* assertCanReach(body.counterpartyId, creatorId, "counterparty agent", findAgent(creatorId));
  yield* authorizeOutflow({ agentId: creatorId, kind: "CONTRACT", amount, currency: body.currency, counterpartyId: body.counterpartyId, terms: body }, sanction);
  const now = clock.nowMs();
  const deadlineDays = body.deadlineDays ?? 30;
  const row = yield* insert(contracts, {
    id: uuid(),
    creatorId,
    counterpartyId: body.counterpartyId,
    title: body.title,
    description: body.description,
    escrowAmount: amount,
    currency: body.currency,
    conditions: jsonText(body.conditions.map(({ id, type, description, params }): ContractCondition => ({ id, type, description, params, fulfilledAt: null }))),
    deadlineDays,
    deadlineAt: now + deadlineDays * DAY_MS,
    status: "PENDING_SIGNATURE",
    keyId: yield* committingKeyId(),
    createdAt: now,
  });
  yield* hold({ agentId: creatorId, amount, currency: body.currency, purpose: "CONTRACT_ESCROW", reference: reference(row) });
  // Not a movement of the counterparty's money, but its only way to learn it has something to sign.
  yield* notifyFinancial(body.counterpartyId, "contract.proposed", { contractId: row.id, creatorId, escrowAmount: body.escrowAmount, currency: body.currency }, `Contract to sign: ${row.title}`);
  return contractView(row);
}

export function* signContract(agentId: AgentId, id: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.counterpartyId !== agentId) throw forbidden("only the counterparty signs a contract");
  yield* assertNotBlockedBy(contract.creatorId, agentId);
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be signed; this one is ${status}`);
  const signed = yield* update(contracts, contract.id, { status: "ACTIVE", signedAt: clock.nowMs() });
  yield* notifyBoth(signed, "contract.signed", "Contract signed and active");
  return contractView(signed);
}

/** What fulfillCondition answers: the contract or condition unknown, not the creator's, not ACTIVE, or the release refused. */
export const FULFILL_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", ...RELEASE_ERRORS] as const satisfies readonly ErrorCode[];

export function* fulfillCondition(agentId: AgentId, id: string, conditionId: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.creatorId !== agentId) throw forbidden("only the creator confirms a condition");
  const now = clock.nowMs();
  const status = statusAt(contract, now);
  if (status !== "ACTIVE") throw invalidState(`conditions are confirmed on an ACTIVE contract; this one is ${status}`);
  const condition = conditionsOf(contract).find((candidate) => candidate.id === conditionId);
  if (!condition) throw notFound("condition");
  if (condition.fulfilledAt !== null) throw invalidState("this condition is already confirmed");
  const conditions = conditionsOf(contract).map((candidate) => (candidate.id === conditionId ? { ...candidate, fulfilledAt: now } : candidate));
  if (conditions.some((candidate) => candidate.fulfilledAt === null)) return contractView(yield* update(contracts, contract.id, { conditions: jsonText(conditions) }));
  // The last confirmation sends the escrow to the counterparty: a release by the confirming key (outflows/release.ts).
  yield* authorizeRelease({ kind: "CONTRACT_CONDITION", agentId, amount: contract.escrowAmount, currency: contract.currency, counterpartyId: contract.counterpartyId, madeBy: contract.keyId });
  yield* postHold(yield* escrowHold(contract), contract.counterpartyId);
  yield* adjustScore(contract.counterpartyId, "CONTRACT_FULFILLED", reference(contract));
  const fulfilled = yield* update(contracts, contract.id, { conditions: jsonText(conditions), status: "FULFILLED", closedAt: now });
  yield* notifyBoth(fulfilled, "contract.fulfilled", "Contract fulfilled, escrow paid to the counterparty");
  return contractView(fulfilled);
}

export function* cancelContract(agentId: AgentId, id: string) {
  const contract = yield* partyContract(agentId, id, true);
  if (contract.creatorId !== agentId) throw forbidden("only the creator cancels a contract");
  const status = statusAt(contract, clock.nowMs());
  if (status !== "PENDING_SIGNATURE") throw invalidState(`only a PENDING_SIGNATURE contract can be cancelled; this one is ${status}`);
  yield* voidHold(yield* escrowHold(contract));
  const cancelled = yield* update(contracts, contract.id, { status: "CANCELLED", closedAt: clock.nowMs() });
  yield* notifyBoth(cancelled, "contract.cancelled", "Contract cancelled, escrow returned to the creator");
  return contractView(cancelled);
}

/** At the deadline: unsigned → EXPIRED, signed with open conditions → BREACHED; the escrow goes back. */
function* applyDeadline(contract: Contract): Op<void> {
  yield* expireHold(yield* escrowHold(contract));
  if (contract.status === "PENDING_SIGNATURE") {
    yield* notifyBoth(yield* update(contracts, contract.id, { status: "EXPIRED", closedAt: contract.deadlineAt }), "contract.expired", "Contract expired unsigned, escrow returned to the creator");
    return;
  }
  yield* adjustScore(contract.counterpartyId, "CONTRACT_BREACHED", reference(contract));
  yield* notifyBoth(yield* update(contracts, contract.id, { status: "BREACHED", closedAt: contract.deadlineAt }), "contract.breached", "Contract breached at its deadline, escrow returned to the creator");
}

/** A write op: the contract's deadline is applied if it is still due (locked: an action racing it waits). */
function* applyDeadlineIfDue(id: string): Op<boolean> {
  const contract = yield* find(contracts, id, true);
  if (!contract || contract.deadlineAt > clock.nowMs() || !["PENDING_SIGNATURE", "ACTIVE"].includes(contract.status)) return false;
  yield* applyDeadline(contract);
  return true;
}

const dueDeadlines: DueWork = {
  name: "contracts.deadline",
  table: "contracts",
  where: "status IN ('PENDING_SIGNATURE', 'ACTIVE')",
  dueColumn: "deadline_at",
  apply: applyDeadlineIfDue,
};

/**
 * Before an action on one contract: its due deadline committed in an op of its own (a read, and a
 * write only if due), so an action refused because the contract is past due leaves it stored as such.
 */
export const applyContractDue = (id: string) => applyIfDue(dueDeadlines, id);

/** The deadline job (every contract), or the caller's own contracts before they are listed. */
export const applyDueDeadlines = (agentId?: AgentId) =>
  applyDue(dueDeadlines, agentId === undefined ? undefined : { where: "(creator_id = ? OR counterparty_id = ?)", params: [agentId, agentId] });

/** A contract the caller is a party to (the route applies its due deadline first). */
export function* getContract(agentId: AgentId, id: string) {
  return contractView(yield* partyContract(agentId, id));
}

/** The caller's contracts (the route applies their due deadlines first). */
export function* myContracts(agentId: AgentId, window: PageWindow) {
  const where = "(creator_id = ? OR counterparty_id = ?)";
  return yield* newestFirst({ table: contracts, scope: { where, params: [agentId, agentId] } }, window, contractView);
}
