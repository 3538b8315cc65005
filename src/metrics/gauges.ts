// Every metric besides the HTTP ones: read at scrape time (collect()), from the state the database holds
// (state.ts), from what the engines and the webhook sender count in memory, and from what the chain jobs
// last saw. Only what applies is registered: the group commit on SQLite, the pool on PostgreSQL, the
// chain's with a chain configured.
import { unconfirmedDeposits } from "../chain/unconfirmed";
import { recentTreasuryBalances } from "../chain/status";
import { config } from "../config";
import { databaseKind } from "../db";
import { lastBackupAt } from "../db/backup";
import { databaseStats, observeGroupCommits } from "../db/stats";
import { deliveryAttempts } from "../webhooks/signed";
import { Counter, Gauge, Histogram } from "prom-client";
import { PREFIX, registry } from "./registry";
import { CAP, stateNow, type ServiceState } from "./state";

type Collected = Gauge<string> | Counter<string>;

/**
 * A metric whose values are set when it is collected: cleared first (a series not set again is absent, not
 * 0 — an alert on ledger_check_ok == 0 must not fire before the first check), then set.
 */
function collected(kind: "gauge" | "counter", name: string, help: string, labelNames: string[], collect: (metric: Collected) => Promise<void> | void): void {
  const options = { name: `${PREFIX}${name}`, help, labelNames, registers: [registry] };
  async function refill(this: Collected) {
    this.reset();
    if (labelNames.length === 0) this.remove();
    await collect(this);
  }
  if (kind === "gauge") new Gauge({ ...options, collect: refill });
  else new Counter({ ...options, collect: refill });
}

/** A gauge of the database's state (one read per scrape, shared). */
const fromState = (name: string, help: string, labelNames: string[], set: (gauge: Collected, state: ServiceState) => void) =>
  collected("gauge", name, help, labelNames, async (gauge) => set(gauge, await stateNow()));

const add = (metric: Collected, value: number, labels: Record<string, string> = {}) =>
  metric instanceof Gauge ? metric.set(labels, value) : metric.inc(labels, value);

function stateMetrics(): void {
  fromState("money_available", "What agents hold available, per currency (major units): owed (minus the system accounts) less held", ["currency"], (gauge, state) => {
    for (const row of state.money) add(gauge, row.available, { currency: row.currency });
  });
  fromState("money_held", "What agents hold in escrow, per currency (major units): the PENDING holds", ["currency"], (gauge, state) => {
    for (const row of state.money) add(gauge, row.held, { currency: row.currency });
  });
  fromState("approvals_pending", `Outflows held for their owner's decision (counted up to ${CAP})`, [], (gauge, state) => add(gauge, state.approvalsPending));
  fromState("approvals_expiring_soon", `Held outflows that expire within the hour unanswered (counted up to ${CAP})`, [], (gauge, state) => add(gauge, state.approvalsExpiringWithinHour));
  fromState("webhook_events_queued", `Agent webhook events not yet delivered (PENDING or being sent; counted up to ${CAP})`, [], (gauge, state) => add(gauge, state.webhookEventsQueued));
  fromState("webhook_oldest_queued_age_seconds", "Age of the oldest PENDING agent webhook event (0: none)", [], (gauge, state) => add(gauge, state.webhookOldestQueuedSeconds));
  fromState("mail_queued", `Messages in the mail outbox waiting to be sent (counted up to ${CAP})`, [], (gauge, state) => add(gauge, state.mailQueued));
  fromState("owner_webhook_notices_queued", `Owner webhook notices waiting to be sent (counted up to ${CAP})`, [], (gauge, state) => add(gauge, state.ownerNoticesQueued));
  fromState("withdrawals", `Withdrawals in flight by state (counted up to ${CAP} each)`, ["state"], (gauge, state) => {
    for (const [name, count] of Object.entries(state.withdrawals)) add(gauge, count, { state: name });
  });
  fromState("withdrawal_oldest_submitted_age_seconds", "Time since the oldest SUBMITTED withdrawal was broadcast (0: none)", [], (gauge, state) => add(gauge, state.withdrawalOldestSubmittedSeconds));
  fromState("facilitator_gas_used_today", "Gas the treasury spent (or reserved) settling x402 sales since 00:00 UTC", [], (gauge, state) => add(gauge, state.facilitatorGasToday));
  fromState("ledger_check_ok", "1 when the last ledger check (periodic, or GET /admin/ledger/check) held, 0 when it failed; absent before the first", [], (gauge, state) => {
    if (state.ledgerCheck) add(gauge, state.ledgerCheck.ok ? 1 : 0);
  });
  fromState("ledger_check_timestamp_seconds", "When the last ledger check ran", [], (gauge, state) => {
    if (state.ledgerCheck) add(gauge, state.ledgerCheck.at / 1000);
  });
  fromState("ledger_check_duration_seconds", "How long the last ledger check took", [], (gauge, state) => {
    if (state.ledgerCheck) add(gauge, state.ledgerCheck.seconds);
  });
  fromState("state_read_seconds", "How long this scrape's read of the database state took", [], (gauge, state) => add(gauge, state.readSeconds));
  collected("counter", "webhook_deliveries_total", "Webhook delivery attempts by this process, by receiver (agent, owner) and outcome", ["receiver", "outcome"], (counter) => {
    for (const [receiver, outcomes] of Object.entries(deliveryAttempts)) {
      for (const [outcome, count] of Object.entries(outcomes)) add(counter, count, { receiver, outcome });
    }
  });
}

function databaseMetrics(): void {
  collected("counter", "db_writes_committed_total", "Write ops committed by this process", [], (counter) => add(counter, databaseStats.committed));
  if (databaseKind() === "sqlite") {
    const size = new Histogram({ name: `${PREFIX}sqlite_group_commit_ops`, help: "Write ops per group commit (one transaction, one fsync)", buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], registers: [registry] });
    const seconds = new Histogram({
      name: `${PREFIX}sqlite_group_commit_seconds`,
      help: "Time the writer executes one group, BEGIN to COMMIT (its fdatasync follows on another thread)",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    observeGroupCommits((ops, took) => {
      size.observe(ops);
      seconds.observe(took);
    });
    collected("gauge", "backup_last_success_timestamp_seconds", "When the last backup of the SQLite file was taken (agentbank backup, GET /admin/backup); 0: never", [], async (gauge) => {
      add(gauge, ((await lastBackupAt(config.databasePath)) ?? 0) / 1000);
    });
    return;
  }
  collected("counter", "db_writes_retried_total", "Write ops run again after a deadlock, serialization failure or unique-key race (PostgreSQL)", [], (counter) => add(counter, databaseStats.retried));
  collected("gauge", "pg_pool_connections_in_use", "Pool connections in use by this process's reads and writes", [], (gauge) => add(gauge, Math.min(databaseStats.connectionsWanted, databaseStats.poolSize)));
  collected("gauge", "pg_pool_connections_waiting", "Reads and writes waiting for a pool connection", [], (gauge) => add(gauge, Math.max(0, databaseStats.connectionsWanted - databaseStats.poolSize)));
  collected("gauge", "pg_pool_size", "Pool connections this process may open (DB_POOL_SIZE)", [], (gauge) => add(gauge, databaseStats.poolSize));
}

function chainMetrics(): void {
  if (!config.chain.configured) return;
  fromState("chain_cursor_block", "The last block the chain watcher read (confirmed)", [], (gauge, state) => {
    if (state.chainCursor) add(gauge, Number(state.chainCursor.block));
  });
  fromState("chain_cursor_block_timestamp_seconds", "The time of the last block the chain watcher read: compare with time()", [], (gauge, state) => {
    if (state.chainCursor?.timestamp) add(gauge, Number(state.chainCursor.timestamp));
  });
  collected("gauge", "chain_head_lag_blocks", "Blocks between the chain's head (as the jobs last saw it) and the watcher's cursor; includes the CONFIRMATIONS window", [], async (gauge) => {
    const seen = unconfirmedDeposits();
    const { chainCursor } = await stateNow();
    if (seen && chainCursor) add(gauge, Math.max(0, Number(seen.headBlock - chainCursor.block)));
  });
  collected("gauge", "chain_deposits_unconfirmed", "USDC transfers to agents' deposit addresses in blocks still short of CONFIRMATIONS", [], (gauge) => {
    const seen = unconfirmedDeposits();
    if (seen) add(gauge, seen.deposits);
  });
  collected("gauge", "chain_deposits_unconfirmed_usdc", "Their amount (USDC)", [], (gauge) => {
    const seen = unconfirmedDeposits();
    if (seen) add(gauge, Number(seen.amount) / 1e6);
  });
  const treasury = (name: string, help: string, value: (balances: { usdc: bigint; gas: bigint; at: number }) => number) =>
    collected("gauge", name, help, [], async (gauge) => {
      const balances = await recentTreasuryBalances();
      if (balances) add(gauge, value(balances));
    });
  treasury("treasury_usdc", "The treasury's USDC on chain (read at most every 30 s)", (balances) => Number(balances.usdc) / 1e6);
  treasury("treasury_gas_eth", "The treasury's ETH for gas on chain (read at most every 30 s)", (balances) => Number(balances.gas) / 1e18);
  treasury("treasury_balance_timestamp_seconds", "When the treasury's balances were last read successfully", (balances) => balances.at / 1000);
}

/** Registers them all, once the database is open and the configuration known. */
export function registerServiceMetrics(): void {
  stateMetrics();
  databaseMetrics();
  chainMetrics();
}
