// What the service holds right now, read when Prometheus scrapes: one read of the database for every
// gauge (shared by the gauges of one scrape), each statement served by an index and bounded: queue
// lengths are counted up to CAP (a count of CAP means "at least"), the oldest item is the first row of
// an index range, money comes from the few system accounts and the PENDING holds. Nothing here locks a
// row, scans a table that grows with the payments, or writes.
import { lastCheck } from "../admin/check";
import { watchCursor } from "../chain/watcher";
import { clock } from "../clock";
import { all, get, read, together, type Op } from "../db";
import { CURRENCIES, DECIMALS, type Currency } from "../money";
import { HOUR_MS } from "../time";
import { gasDayStart, gasSpentSince } from "../x402/facilitator/gas";

/** Queues are counted up to this many rows. */
export const CAP = 10_000;

const capped = (from: string, ...params: unknown[]) => get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${from} LIMIT ${CAP}) capped`, ...params);
const oldest = (column: string, from: string) => get<{ at: bigint }>(`SELECT ${column} AS at FROM ${from} ORDER BY ${column} LIMIT 1`);

function* serviceState(now: number) {
  const [custody, held, approvals, expiring, webhookEvents, oldestEvent, mail, ownerNotices, pendingWithdrawals, submitted, oldestSubmitted, cursor, facilitatorGas, check] = yield* together(
    // What agents are owed, per currency: minus the system accounts (external, in flight), which balance them.
    all<{ currency: Currency; total: bigint }>("SELECT currency, CAST(-SUM(balance) AS BIGINT) AS total FROM accounts WHERE agent_id IS NULL GROUP BY currency"),
    all<{ currency: Currency; held: bigint }>("SELECT currency, CAST(SUM(amount) AS BIGINT) AS held FROM holds WHERE state = 'PENDING' GROUP BY currency"),
    capped("approvals WHERE status = 'PENDING'"),
    capped("approvals WHERE status = 'PENDING' AND expires_at <= ?", now + HOUR_MS),
    capped("webhook_events WHERE status IN ('PENDING', 'SENDING')"),
    oldest("created_at", "webhook_events WHERE status = 'PENDING'"),
    capped("mail_outbox WHERE status = 'QUEUED'"),
    capped("owner_webhook_notices WHERE status = 'QUEUED'"),
    capped("withdrawals WHERE status = 'PENDING'"),
    capped("withdrawals WHERE status = 'SUBMITTED'"),
    oldest("updated_at", "withdrawals WHERE status = 'SUBMITTED'"),
    watchCursor(),
    gasSpentSince(gasDayStart(now)),
    lastCheck(),
  );
  const owed = new Map(custody.map((row) => [row.currency, row.total]));
  const heldBy = new Map(held.map((row) => [row.currency, row.held]));
  const major = (minor: bigint, currency: Currency) => Number(minor) / 10 ** DECIMALS[currency];
  const age = (row: { at: bigint } | null) => (row ? Math.max(0, now - Number(row.at)) / 1000 : 0);
  return {
    money: CURRENCIES.map((currency) => {
      const inEscrow = heldBy.get(currency) ?? 0n;
      return { currency, available: major((owed.get(currency) ?? 0n) - inEscrow, currency), held: major(inEscrow, currency) };
    }),
    approvalsPending: Number(approvals!.n),
    approvalsExpiringWithinHour: Number(expiring!.n),
    webhookEventsQueued: Number(webhookEvents!.n),
    webhookOldestQueuedSeconds: age(oldestEvent),
    mailQueued: Number(mail!.n),
    ownerNoticesQueued: Number(ownerNotices!.n),
    withdrawals: { PENDING: Number(pendingWithdrawals!.n), SUBMITTED: Number(submitted!.n) },
    withdrawalOldestSubmittedSeconds: age(oldestSubmitted),
    chainCursor: cursor,
    facilitatorGasToday: Number(facilitatorGas),
    ledgerCheck: check,
  };
}

/** The database's state, and how long reading it took. */
export type ServiceState = (ReturnType<typeof serviceState> extends Op<infer T> ? T : never) & { readSeconds: number };

let shared: Promise<ServiceState> | null = null;

/** The state for this scrape: read at its first gauge, shared by the others. A failed read fails the scrape. */
export function stateNow(): Promise<ServiceState> {
  if (shared === null) {
    const at = performance.now();
    shared = read(serviceState(clock.nowMs())).then((value) => ({ ...value, readSeconds: (performance.now() - at) / 1000 }));
  }
  return shared;
}

/** A scrape begins: its gauges read the state afresh. */
export function forgetState(): void {
  shared = null;
}
