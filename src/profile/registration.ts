// Registration: an agent, its keys, its ledger accounts and its custodial deposit address, in one write
// op, and the onboarding it is answered with. It sits above agents, the ledger and the chain (the
// address comes from the chain's key tree), so none of them reaches up to another.
import { assignDepositAddress } from "../chain/addresses";
import { config } from "../config";
import { write } from "../db";
import { webhookSecret as newWebhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { tierOf, TIERS } from "../agents/tiers";
import { agentView, getAgent, registerAgent, type Registration } from "../agents/service";
import { openAgentAccounts } from "../ledger/ledger";
import { balancesView } from "../wallets/balances";

function* createAgent(input: Registration, webhookSecret: string | null) {
  const { id, apiKey, ownerKey } = yield* registerAgent(input, webhookSecret);
  yield* openAgentAccounts(id);
  const address = yield* assignDepositAddress(id);
  return { agent: agentView(yield* getAgent(id)), apiKey, ownerKey, address, balances: yield* balancesView(id) };
}

/** What a new agent needs to start: where to send money, how to authenticate, its limits. */
function onboarding() {
  const tier = tierOf(0);
  return {
    message: "Store apiKey and ownerKey now: they are shown only once.",
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

/** Registers an agent; its webhook URL is checked to be callable first (outside the write op: no network call holds a lock). */
export async function register(input: Registration) {
  if (input.webhookUrl) await assertCallable(input.webhookUrl, "webhookUrl");
  const webhookSecret = input.webhookUrl ? newWebhookSecret() : null;
  const { agent, apiKey, ownerKey, address, balances } = await write(() => createAgent(input, webhookSecret));
  return { agent, apiKey, ownerKey, ...(webhookSecret ? { webhookSecret } : {}), wallet: { address, balances }, onboarding: onboarding() };
}
