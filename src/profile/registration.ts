// Registration: an agent, its keys, its ledger accounts and its custodial deposit address, in one write
// op, and the onboarding it is answered with. It sits above agents, the ledger and the chain (the
// address comes from the chain's key tree), so none of them reaches up to another.
//
// Who owns it: by default nobody yet. The agent's answer carries no owner key (an agent that registers
// itself must not hold its owner's power); a claim link goes to ownerEmail in the same op, and until
// someone claims it the agent spends under UNCLAIMED_POLICY. With OWNER_KEY_AT_REGISTRATION=true (and in
// `agentbank dev`) the answer carries the owner key (po_…) instead, as before owner accounts: whoever
// holds it is the owner, and no default policy applies.
import { assignDepositAddress } from "../chain/addresses";
import { config } from "../config";
import { webhookSecret as newWebhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { mailClaimLink } from "../notices/links";
import { policyOfUsdValues, storePolicy } from "../outflows/policy";
import { tierOf, TIERS } from "../agents/tiers";
import { agentView, getAgent, registerAgent, type Registration } from "../agents/service";
import { openAgentAccounts } from "../ledger/ledger";
import { balancesView } from "../wallets/balances";

function* createAgent(input: Registration, webhookSecret: string | null) {
  const keyed = config.ownerKeyAtRegistration;
  const policy = keyed ? null : storePolicy(policyOfUsdValues(config.unclaimedPolicy, config.referenceRates));
  const { id, apiKey, ownerKey } = yield* registerAgent(input, webhookSecret, policy);
  yield* openAgentAccounts(id);
  const address = yield* assignDepositAddress(id);
  const claim = keyed ? null : yield* mailClaimLink({ id, ...input });
  return { agent: agentView(yield* getAgent(id)), apiKey, ownerKey: keyed ? ownerKey : null, claim, address, balances: yield* balancesView(id) };
}

/** What a new agent needs to start: where to send money, how to authenticate, its limits, and who owns it. */
function onboarding(claim: { sentTo: string; expiresAt: string } | null) {
  const tier = tierOf(0);
  return {
    message: claim ? "Store apiKey now: it is shown only once." : "Store apiKey and ownerKey now: they are shown only once.",
    owner: claim
      ? {
          status: "UNCLAIMED",
          claimLinkSentTo: claim.sentTo,
          claimLinkExpiresAt: claim.expiresAt,
          meanwhile: "Until the owner opens the claim link and confirms, outflows above the service's default policy wait for the owner (GET /owner/policy shows it to the owner; 202 AWAITING_APPROVAL to you).",
        }
      : { status: "KEY", meanwhile: "The owner key (ownerKey, po_…) is the owner's: hand it to the human who answers for this agent, and do not keep it." },
    authentication: "Send Authorization: Bearer <apiKey> on every request.",
    fund: "Deposit USDC to your wallet address (chain) or ask the operator for a deposit (POST /admin/deposits).",
    limits: {
      tier: tier.tier,
      maxPerTransaction: tier.maxPerTransaction,
      rateLimit: { requests: config.rateLimitDefault, windowSeconds: config.rateLimitWindowSeconds },
    },
    tiers: TIERS.map(({ tier, maxPerTransaction }) => ({ tier, maxPerTransaction })),
    docs: "/swagger",
  };
}

/** Before an agent is registered: its webhook URL resolves to a public address (outside the write op: no network call holds a lock). */
export async function assertRegistrationCallable(input: Registration): Promise<void> {
  if (input.webhookUrl) await assertCallable(input.webhookUrl, "webhookUrl");
}

/** A write op: registers an agent, answered with its keys (once), its wallet and its onboarding. */
export function* register(input: Registration) {
  const webhookSecret = input.webhookUrl ? newWebhookSecret() : null;
  const { agent, apiKey, ownerKey, claim, address, balances } = yield* createAgent(input, webhookSecret);
  return { agent, apiKey, ...(ownerKey ? { ownerKey } : {}), ...(webhookSecret ? { webhookSecret } : {}), wallet: { address, balances }, onboarding: onboarding(claim) };
}
