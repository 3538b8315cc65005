// The console's history (a console-only read): one line per thing that happened, not per posting.
// Postings are grouped by their journal reference (and currency), so an escrow's hold, release and
// payout are one operation with its net effect on the agent's available balance. A held outflow the
// owner approved is folded into the operation it became: its hold and give-back (the approval's own
// reference) net to zero and are left out; the operation says it was approved. Each operation carries
// its reason in words: a payment's reason, a contract's title, a bet's description, an x402 URL, and
// the name of the agent's restricted key that made it (never the other party's key). Its other party
// is named even where the postings do not carry it (money set aside for a contract, a bet or an
// approval): from the contract, the bet or the approval; an address outside the service (an x402
// payee, a withdrawal) is kept as the address.
import { all, type Op, type Row } from "../db";
import { iso } from "../clock";
import { toMajor, type Currency } from "../money";
import { readJson, type JsonText } from "../json";
import { payments } from "../payments/schema";
import { approvals } from "../outflows/schema";
import { type AgentId } from "../ids";

export type Leg = { type: string; amount: number };
export type Operation = {
  referenceType: string;
  referenceId: string;
  currency: Currency;
  /** The net change of the agent's available balance. */
  amount: number;
  counterpartyId: AgentId | null;
  /** The address outside the service the money goes to, when no agent is the other party (an x402 payee, a withdrawal). */
  address: string | null;
  at: string;
  legs: Leg[];
  /** What it is, in words ("Paid", "Bet, won", "Waiting for your approval: payment"). */
  what: string;
  reason: string | null;
  /** Set when the owner approved it after it was held. */
  approved: boolean;
  /** The agent's restricted key whose request made it; null: the agent key, the owner, the service, the other party. */
  keyName: string | null;
};

export type HistoryFilter = { fromMs?: number; toMs?: number; currency?: Currency };

type Group = { referenceType: string; referenceId: string; currency: Currency; amount: bigint; counterpartyId: AgentId | null; lastAt: bigint; keyName: string | null };

/** The approvals an owner approved: their legs net to zero and the outflow they became has its own reference. */
const NOT_APPROVED_HOLD = "(a.id IS NULL OR a.status <> 'APPROVED')";

function* groups(agentId: AgentId, filter: HistoryFilter, limit: number, offset: number): Op<Group[]> {
  const where = ["p.history_agent_id = ?", NOT_APPROVED_HOLD];
  const params: unknown[] = [agentId];
  if (filter.fromMs !== undefined) where.push("p.created_at >= ?"), params.push(filter.fromMs);
  if (filter.toMs !== undefined) where.push("p.created_at < ?"), params.push(filter.toMs);
  if (filter.currency) where.push("p.currency = ?"), params.push(filter.currency);
  return yield* all<Group>(
    `SELECT e.reference_type AS referenceType, e.reference_id AS referenceId, p.currency AS currency, CAST(SUM(p.amount) AS BIGINT) AS amount,
            MAX(p.counterparty_id) AS counterpartyId, MAX(p.created_at) AS lastAt, MAX(k.name) AS keyName
     FROM postings p JOIN journal_entries e ON e.id = p.entry_id
     LEFT JOIN approvals a ON e.reference_type = 'approval' AND a.id = e.reference_id
     LEFT JOIN agent_keys k ON k.id = e.key_id AND k.agent_id = p.history_agent_id
     WHERE ${where.join(" AND ")}
     GROUP BY e.reference_type, e.reference_id, p.currency
     ORDER BY MAX(p.id) DESC LIMIT ? OFFSET ?`,
    ...params,
    limit,
    offset,
  );
}

const LOOKUP_SLICE = 500;
const MARGIN_MS = 60_000n;
const placeholders = (values: unknown[]) => values.map(() => "?").join(", ");
const idsOf = (rows: Group[], type: string) => [...new Set(rows.filter((row) => row.referenceType === type).map((row) => row.referenceId))];

function* legsOf(agentId: AgentId, rows: Group[]): Op<Map<string, Leg[]>> {
  const legs = new Map<string, Leg[]>();
  const ids = [...new Set(rows.map((row) => row.referenceId))];
  if (ids.length === 0) return legs;
  const found = yield* all<{ referenceType: string; referenceId: string; type: string; amount: bigint; currency: Currency }>(
    `SELECT e.reference_type AS referenceType, e.reference_id AS referenceId, p.history_type AS type, p.amount, p.currency
     FROM postings p JOIN journal_entries e ON e.id = p.entry_id WHERE p.history_agent_id = ? AND e.reference_id IN (${placeholders(ids)}) ORDER BY p.id`,
    agentId,
    ...ids,
  );
  for (const leg of found) {
    const key = `${leg.referenceType}:${leg.referenceId}:${leg.currency}`;
    legs.set(key, [...(legs.get(key) ?? []), { type: leg.type, amount: toMajor(leg.amount, leg.currency) }]);
  }
  return legs;
}

type Detail = { what?: string; reason?: string | null; approved?: boolean; counterpartyId?: AgentId | null; address?: string | null };
const KIND_WORDS: Record<string, string> = {
  PAYMENT: "payment",
  X402: "payment for a web resource",
  BET: "bet",
  BET_ACCEPT: "bet acceptance",
  LOAN_OFFER: "loan offer",
  LOAN_BORROW: "borrowing",
  CONTRACT: "contract",
  SUBSCRIPTION: "subscription",
  BOOKING: "booking",
  WITHDRAWAL: "withdrawal",
};
const APPROVAL_WORDS: Record<string, string> = { PENDING: "Waiting for your approval", DECLINED: "You declined", EXPIRED: "Expired without a decision", FAILED: "Approved, but it could not be made" };

const EVERY: Record<string, string> = { DAILY: "Daily", WEEKLY: "Weekly", MONTHLY: "Monthly" };

/** A held outflow's reason, and the outside address it would pay (an x402 payee, a withdrawal), from the request it holds. */
function inTerms(terms: JsonText<Record<string, unknown>>): { reason: string | null; address: string | null } {
  const parsed = readJson(terms);
  const text = (values: unknown[]) => (values.find((value) => typeof value === "string" && value !== "") as string | undefined) ?? null;
  return { reason: text([parsed.reason, parsed.title, parsed.description, parsed.url]), address: text([parsed.payTo, parsed.toAddress]) };
}

/** The `id` of what an approved request made (its answer, kept on the approval), if it has one. */
const idOf = (answer: unknown) => (typeof answer === "object" && answer !== null && "id" in answer ? answer.id : undefined);

/** A booking's payment names its booking's id before the service ("booking <id>: Room"): the service's name is enough. */
const bookedService = (reason: string | null) => reason?.replace(/^booking [^:\s]+: /, "") ?? null;
const otherOf = (agentId: AgentId, a: AgentId | null, b: AgentId | null) => (a === agentId ? b : a);

/** Words for each operation of the page: reasons by reference type, and which ones the owner approved. */
function* detailsOf(agentId: AgentId, rows: Group[]): Op<Map<string, Detail>> {
  const details = new Map<string, Detail>();
  const set = (type: string, id: string, detail: Detail) => details.set(`${type}:${id}`, { ...details.get(`${type}:${id}`), ...detail });
  const lookup = function* <T extends { id: string }>(type: string, sql: string, each: (row: T) => Detail) {
    const ids = idsOf(rows, type);
    if (ids.length === 0) return;
    for (const row of yield* all<T>(`${sql} WHERE id IN (${placeholders(ids)})`, ...ids)) set(type, row.id, each(row));
  };
  // A subscription's charge: its payment's reason names the subscription by id; the line says how often instead.
  const charges = new Map<string, { subscriptionId: string; period: number }>();
  type PaymentRow = Pick<Row<typeof payments>, "id" | "reason" | "kind" | "fromAgentId" | "metadata">;
  yield* lookup<PaymentRow>("payment", "SELECT id, reason, kind, from_agent_id AS fromAgentId, metadata FROM payments", (row) => {
    if (row.kind === "SUBSCRIPTION") {
      const charge = row.metadata && readJson(row.metadata);
      if (typeof charge?.subscriptionId === "string" && typeof charge.period === "number") charges.set(row.id, { subscriptionId: charge.subscriptionId, period: charge.period });
      return { what: "Subscription charge", reason: null };
    }
    return { reason: row.kind === "BOOKING" ? bookedService(row.reason) : row.reason, what: row.kind === "BOOKING" ? "Booking" : row.fromAgentId === agentId ? "Paid" : "Received" };
  });
  const subscriptionIds = [...new Set([...charges.values()].map((charge) => charge.subscriptionId))];
  if (subscriptionIds.length > 0) {
    const every = new Map((yield* all<{ id: string; frequency: string }>(`SELECT id, frequency FROM subscriptions WHERE id IN (${placeholders(subscriptionIds)})`, ...subscriptionIds)).map((row) => [row.id, row.frequency]));
    for (const [paymentId, charge] of charges) set("payment", paymentId, { what: `${EVERY[every.get(charge.subscriptionId) ?? ""] ?? "Subscription"} subscription, charge ${charge.period + 1}` });
  }
  yield* lookup<{ id: string; title: string; creatorId: AgentId; counterpartyId: AgentId }>("contract", "SELECT id, title, creator_id AS creatorId, counterparty_id AS counterpartyId FROM contracts", (row) => ({
    reason: row.title,
    counterpartyId: otherOf(agentId, row.creatorId, row.counterpartyId),
  }));
  type BetRow = { id: string; description: string; winnerId: AgentId | null; creatorId: AgentId; acceptorId: AgentId | null };
  yield* lookup<BetRow>("bet", "SELECT id, description, winner_id AS winnerId, creator_id AS creatorId, acceptor_id AS acceptorId FROM bets", (row) => ({
    reason: row.description,
    what: row.winnerId === null ? "Bet" : row.winnerId === agentId ? "Bet, won" : "Bet, lost",
    counterpartyId: otherOf(agentId, row.creatorId, row.acceptorId),
  }));
  yield* lookup<{ id: string; url: string; payTo: string; internalAgentId: AgentId | null }>("x402", "SELECT id, url, pay_to AS payTo, internal_agent_id AS internalAgentId FROM x402_payments", (row) => ({
    reason: row.url,
    counterpartyId: row.internalAgentId,
    address: row.internalAgentId === null ? row.payTo : null,
  }));
  yield* lookup<{ id: string; resource: string | null }>("x402_sale", "SELECT id, resource FROM x402_sales", (row) => ({ reason: row.resource }));
  yield* lookup<{ id: string; toAddress: string; internalAgentId: AgentId | null }>("withdrawal", "SELECT id, to_address AS toAddress, internal_agent_id AS internalAgentId FROM withdrawals", (row) => ({
    counterpartyId: row.internalAgentId,
    address: row.internalAgentId === null ? row.toAddress : null,
  }));
  yield* lookup<Pick<Row<typeof approvals>, "id" | "status" | "kind" | "terms" | "counterpartyId">>("approval", "SELECT id, status, kind, terms, counterparty_id AS counterpartyId FROM approvals", (row) => {
    const { reason, address } = inTerms(row.terms);
    return { reason, what: `${APPROVAL_WORDS[row.status] ?? row.status}: ${KIND_WORDS[row.kind] ?? row.kind}`, counterpartyId: row.counterpartyId, address: row.counterpartyId === null ? address : null };
  });
  // Approved holds are left out of the groups; the outflow they became is marked. Those decided while
  // this page's operations happened are enough: the outflow is made in the approving transaction (a
  // margin, as the decision's time and the postings' are read from the clock separately).
  if (rows.length > 0) {
    const times = rows.map((row) => row.lastAt);
    const earliest = times.reduce((a, b) => (a < b ? a : b));
    const latest = times.reduce((a, b) => (a > b ? a : b));
    const approved = yield* all<Pick<Row<typeof approvals>, "result">>(
      "SELECT result FROM approvals WHERE agent_id = ? AND status = 'APPROVED' AND decided_at >= ? AND decided_at <= ?",
      agentId,
      earliest - MARGIN_MS,
      latest + MARGIN_MS,
    );
    const made = new Set(approved.flatMap((row) => (row.result ? [idOf(readJson(row.result))] : [])).filter((id) => typeof id === "string"));
    for (const row of rows) if (made.has(row.referenceId)) set(row.referenceType, row.referenceId, { approved: true });
  }
  return details;
}

const FALLBACK_WHAT: Record<string, string> = {
  deposit: "Deposit",
  chain_deposit: "Deposit from the chain",
  correction: "Correction by the operator",
  withdrawal: "Withdrawal",
  loan: "Loan",
  loan_offer: "Loan offer",
  contract: "Contract",
  x402: "Paid for a web resource",
  x402_sale: "Sold a web resource",
};

/** A page of the agent's operations, newest first; `more` says whether older ones exist. */
export function* operationsOf(agentId: AgentId, filter: HistoryFilter, limit: number, offset: number): Op<{ data: Operation[]; more: boolean }> {
  const rows = yield* groups(agentId, filter, limit + 1, offset);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  // Looked up in slices: a CSV file's 100,000 operations would pass the engines' limits on parameters.
  const legs = new Map<string, Leg[]>();
  const details = new Map<string, Detail>();
  for (let start = 0; start < page.length; start += LOOKUP_SLICE) {
    const slice = page.slice(start, start + LOOKUP_SLICE);
    for (const [key, value] of yield* legsOf(agentId, slice)) legs.set(key, value);
    for (const [key, value] of yield* detailsOf(agentId, slice)) details.set(key, value);
  }
  return {
    more,
    data: page.map((row) => {
      const detail = details.get(`${row.referenceType}:${row.referenceId}`);
      return {
        referenceType: row.referenceType,
        referenceId: row.referenceId,
        currency: row.currency,
        amount: toMajor(row.amount, row.currency),
        counterpartyId: row.counterpartyId ?? detail?.counterpartyId ?? null,
        address: detail?.address ?? null,
        at: iso(Number(row.lastAt)),
        legs: legs.get(`${row.referenceType}:${row.referenceId}:${row.currency}`) ?? [],
        what: detail?.what ?? FALLBACK_WHAT[row.referenceType] ?? row.referenceType.replaceAll("_", " "),
        reason: detail?.reason ?? null,
        approved: detail?.approved ?? false,
        keyName: row.keyName,
      };
    }),
  };
}
