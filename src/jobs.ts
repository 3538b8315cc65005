// Every timed job of the service, registered with the scheduler at start.
import { resolveOracleBets, settleDueBets } from "./betting/service";
import { settleDueContracts } from "./contracts/service";
import { watchChain } from "./chain/watcher";
import { processWithdrawals } from "./chain/withdrawals";
import { config } from "./config";
import { write } from "./db";
import { purgeExpiredKeys } from "./idempotency/idempotency";
import { expireDue as expireDueNegotiations } from "./negotiations/service";
import { settleDueLending } from "./lending/service";
import { expireDueApprovals } from "./owners/decisions";
import { purgeOldUsage } from "./outflows/usage";
import { registerJob } from "./scheduler";
import { chargeDueSubscriptions } from "./subscriptions/service";
import { wakeDispatcher } from "./webhooks/dispatcher";
import { resolvePending } from "./x402/service";

export function registerJobs(): void {
  registerJob("idempotency-keys.purge", () => write(() => purgeExpiredKeys()));
  registerJob("webhooks.deliver-pending", wakeDispatcher);
  registerJob("bets.expire", settleDueBets);
  registerJob("bets.oracles", resolveOracleBets);
  registerJob("contracts.deadline", settleDueContracts);
  registerJob("negotiations.expire", expireDueNegotiations);
  registerJob("lending.due", settleDueLending);
  registerJob("subscriptions.charge", chargeDueSubscriptions);
  registerJob("approvals.expire", () => expireDueApprovals());
  registerJob("outflow-usage.purge", () => write(() => purgeOldUsage()));
  if (config.chain.configured) {
    registerJob("chain.watch", watchChain);
    registerJob("chain.withdrawals", processWithdrawals);
    registerJob("x402.resolve", resolvePending);
  }
}
