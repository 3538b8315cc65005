// USDC withdrawals: the request and the agent's reads. The debit and the PENDING record commit
// together; the sender (sender.ts) then signs, broadcasts and settles it from its receipt.
import { getAddress, isAddress, zeroAddress } from "viem";
import { clock, iso } from "../clock";
import { afterCommit, find, insert, narrowing, newestFirst, oldestFirst, select, type PageWindow, type Row } from "../db";
import { invalid, notFound, type ErrorCode } from "../errors";
import { type AgentId, uuid } from "../ids";
import { toMajor, toMinor } from "../money";
import { authorizeOutflow, NO_SANCTION, OUTFLOW_ERRORS, type Sanction } from "../outflows/check";
import { notifyFinancial } from "../webhooks/outbox";
import { assertNotBlockedBy } from "../agents/blocks";
import { transfer } from "../ledger/transfers";
import { agentIdAtAddress } from "./addresses";
import { chainSettings } from "./client";
import { serviceSignerAt } from "./keys";
import { debitWithdrawal } from "./ledger";
import { withdrawals, type WithdrawalStatus } from "./schema";
import { wakeSender } from "./sender";

export function withdrawalView(row: Row<typeof withdrawals>) {
  return {
    id: row.id,
    agentId: row.agentId,
    toAddress: row.toAddress,
    amount: toMajor(row.amount, "USDC"),
    currency: row.currency,
    status: row.status,
    txHash: row.txHash,
    internalAgentId: row.internalAgentId,
    error: row.error,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function parseDestination(toAddress: string): `0x${string}` {
  // Mixed case must carry a valid EIP-55 checksum; all-lower or all-upper hex is accepted as is.
  if (!isAddress(toAddress, { strict: true })) throw invalid("toAddress is not a valid address (a mixed-case address must have a valid checksum)");
  const address = getAddress(toAddress);
  if (address === zeroAddress) throw invalid("toAddress must not be the zero address");
  return address;
}

/** What requestWithdrawal answers: no chain, short of money, the payee's agent blocking the caller, or refused by the outflow check. */
export const WITHDRAWAL_ERRORS = ["CHAIN_UNAVAILABLE", "FORBIDDEN", "INSUFFICIENT_BALANCE", ...OUTFLOW_ERRORS] as const satisfies readonly ErrorCode[];

/**
 * A write op: debits the agent and records the withdrawal PENDING. To another agent's deposit
 * address it settles at once inside the ledger, with no chain transaction: the watcher does not
 * credit what the treasury sends to agent addresses, so an on-chain transfer there would vanish.
 */
export function* requestWithdrawal(agentId: AgentId, body: { toAddress: string; amount: number; currency?: string }, sanction: Sanction = NO_SANCTION) {
  chainSettings();
  if ((body.currency ?? "USDC") !== "USDC") throw invalid("withdrawals are in USDC only");
  const toAddress = parseDestination(body.toAddress);
  const amount = toMinor(body.amount, "USDC");
  const own = serviceSignerAt(toAddress);
  if (own) throw invalid(`toAddress is the service's own ${own}`);
  const internalAgentId = yield* agentIdAtAddress(toAddress);
  if (internalAgentId === agentId) throw invalid("toAddress is your own deposit address");
  if (internalAgentId) yield* assertNotBlockedBy(internalAgentId, agentId);
  yield* authorizeOutflow({ agentId, kind: "WITHDRAWAL", amount, currency: "USDC", counterpartyId: internalAgentId, terms: body }, sanction);
  const id = uuid();
  const now = clock.nowMs();
  if (internalAgentId) return yield* settleInternally({ id, agentId, internalAgentId, toAddress, amount, now });
  yield* debitWithdrawal(agentId, amount, id);
  const row = yield* insert(withdrawals, { id, agentId, toAddress, amount, currency: "USDC", status: "PENDING", createdAt: now, updatedAt: now });
  yield* afterCommit(wakeSender);
  return withdrawalView(row);
}

function* settleInternally(args: { id: string; agentId: AgentId; internalAgentId: AgentId; toAddress: string; amount: bigint; now: number }) {
  const { id, agentId, internalAgentId, toAddress, amount, now } = args;
  yield* transfer({ from: agentId, to: internalAgentId, amount, currency: "USDC", reference: { type: "withdrawal", id }, entryType: "WITHDRAWAL_INTERNAL", sentAs: "WITHDRAWAL", receivedAs: "DEPOSIT" });
  const row = yield* insert(withdrawals, { id, agentId, toAddress, amount, currency: "USDC", status: "CONFIRMED", internalAgentId, createdAt: now, updatedAt: now });
  const major = toMajor(amount, "USDC");
  yield* notifyFinancial(agentId, "withdrawal.confirmed", { withdrawalId: id, amount: major, currency: "USDC", toAddress, txHash: null, internalAgentId, error: null }, `Withdrawal of ${major} USDC confirmed (to another agent's deposit address, settled internally)`);
  yield* notifyFinancial(internalAgentId, "deposit.credited", { withdrawalId: id, amount: major, currency: "USDC", fromAgentId: agentId, internal: true }, `Deposit credited: ${major} USDC`);
  return withdrawalView(row);
}

export function* getWithdrawal(agentId: AgentId, id: string) {
  const row = yield* find(withdrawals, id);
  if (!row || row.agentId !== agentId) throw notFound("withdrawal");
  return withdrawalView(row);
}

export function listWithdrawals(agentId: AgentId, window: PageWindow) {
  return newestFirst({ table: withdrawals, scope: { where: "agent_id = ?", params: [agentId] } }, window, withdrawalView);
}

export function* withdrawalsInFlight() {
  const rows = yield* select(withdrawals, "status IN ('PENDING', 'SUBMITTED') ORDER BY created_at");
  return rows.map(withdrawalView);
}

/** Every agent's withdrawals (or those in one state, or one agent's), oldest first, each with how long it has waited: the operator's queue. */
export function withdrawalQueue(filter: { status?: WithdrawalStatus; agentId?: AgentId }, window: PageWindow) {
  const now = clock.nowMs();
  const narrow = narrowing({ "status = ?": filter.status, "agent_id = ?": filter.agentId });
  return oldestFirst({ table: withdrawals, scope: { where: "1 = 1", params: [] }, narrow }, window, (row) => ({
    ...withdrawalView(row),
    ageSeconds: Math.max(0, Math.floor((now - Number(row.createdAt)) / 1000)),
  }));
}
