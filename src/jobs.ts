// Every timed job of the service, registered with the scheduler at start. Due transitions run
// through src/due.ts: bounded per run, the rest left to the next tick.
import { checkPeriodically } from "./admin/check";
import { expireDueBets, resolveOracleBets } from "./betting/service";
import { applyDueDeadlines } from "./contracts/service";
import { watchChain } from "./chain/watcher";
import { countUnconfirmedDeposits } from "./chain/unconfirmed";
import { processWithdrawals } from "./chain/sender";
import { config } from "./config";
import { write } from "./db";
import { purgeExpiredKeys } from "./idempotency/idempotency";
import { expireDueNegotiations } from "./negotiations/expiry";
import { expireDueOffers } from "./lending/offers";
import { wakeMailer } from "./mail/dispatcher";
import { wakeOwnerWebhooks } from "./owner-webhooks/dispatcher";
import { defaultDueLoans } from "./lending/service";
import { expireDueApprovals, remindDueApprovals } from "./owners/decisions";
import { purgeUnusedClients } from "./oauth/clients";
import { purgeRotatedRefreshTokens } from "./oauth/service";
import { purgeOldUsage } from "./outflows/usage";
import { registerJob } from "./scheduler";
import { chargeDueSubscriptions } from "./subscriptions/service";
import { wakeDispatcher } from "./webhooks/dispatcher";
import { resolvePending } from "./x402/settlement";
import { expireDueDiscoveries } from "./x402/facilitator/discovery";
import { recoverSettlements } from "./x402/facilitator/recovery";
import { closeDueChannels } from "./x402/batch/close";

export function registerJobs(): void {
  registerJob("idempotency-keys.purge", () => write(() => purgeExpiredKeys()));
  registerJob("webhooks.deliver-pending", wakeDispatcher);
  registerJob("mail.send-due", wakeMailer);
  registerJob("owner-webhooks.send-due", wakeOwnerWebhooks);
  registerJob("bets.expire", () => expireDueBets());
  registerJob("bets.oracles", resolveOracleBets);
  registerJob("contracts.deadline", () => applyDueDeadlines());
  registerJob("negotiations.expire", expireDueNegotiations);
  registerJob("lending.offers-expire", expireDueOffers);
  registerJob("lending.loans-default", () => defaultDueLoans());
  registerJob("subscriptions.charge", chargeDueSubscriptions);
  registerJob("approvals.expire", () => expireDueApprovals());
  registerJob("approvals.remind", remindDueApprovals);
  registerJob("outflow-usage.purge", () => write(() => purgeOldUsage()));
  registerJob("oauth.clients-purge", purgeUnusedClients);
  registerJob("oauth.rotated-tokens-purge", () => write(() => purgeRotatedRefreshTokens()));
  registerJob("ledger.check", checkPeriodically);
  if (config.chain.configured) {
    registerJob("chain.watch", watchChain);
    registerJob("x402.facilitator-recover", recoverSettlements);
    registerJob("chain.unconfirmed", countUnconfirmedDeposits);
    registerJob("chain.withdrawals", processWithdrawals);
    registerJob("x402.resolve", resolvePending);
    registerJob("x402.discovery-expire", expireDueDiscoveries);
    registerJob("x402.channels-close", closeDueChannels);
  }
}
