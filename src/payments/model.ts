import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID, TierLimit, TierName } from "../agents/model";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Int, JsonObject, Model, Money, Nullable, Timestamp } from "../http/responses";

export const Payment = Model(
  {
    id: Uuid,
    fromAgentId: t.String({ format: "uuid", description: "the payer" }),
    toAgentId: t.String({ format: "uuid", description: "the payee" }),
    amount: Money(),
    currency: CurrencyCode,
    reason: Nullable(t.String()),
    metadata: Nullable(JsonObject("the metadata sent with the payment (subscription and booking payments carry their references)")),
    kind: Enum(["DIRECT", "SUBSCRIPTION", "BOOKING"], { description: "what made the payment" }),
    status: Enum(["COMPLETED"], { description: "payments complete at once" }),
    keyId: Nullable(Uuid, { description: "the payer's restricted key (pp_r_…) that made it, shown to the payer only; null: the agent key, the owner's approval, or you are the payee" }),
    createdAt: Timestamp(),
  },
  {
    description: "A payment between two agents. DIRECT payments come from POST /payments/send; SUBSCRIPTION and BOOKING ones from subscriptions and bookings. Completed at once.",
    examples: [
      {
        id: "0198f3a2-5c1e-7a4b-9d2e-3f4a5b6c7d8e",
        fromAgentId: AGENT_ID,
        toAgentId: OTHER_AGENT_ID,
        amount: 12.5,
        currency: "USDC",
        reason: "translation of 3 pages",
        metadata: { orderId: "A-1042" },
        kind: "DIRECT",
        status: "COMPLETED",
        keyId: null,
        createdAt: "2025-06-01T12:00:00.000Z",
      },
    ],
  },
);

export const Limits = Model(
  {
    agentId: Uuid,
    tier: TierName,
    score: Int(),
    maxPerTransaction: t.Number({ description: "the caller's per-transaction limit, in USD" }),
    allTiers: t.Array(TierLimit),
    howToIncrease: t.String({ description: "the next tier and how to reach it" }),
  },
  {
    description: "The caller's per-transaction limit, from its reputation tier, and every tier's",
    examples: [
      {
        agentId: AGENT_ID,
        tier: "BRONZE",
        score: 7,
        maxPerTransaction: 500,
        allTiers: [
          { tier: "UNRATED", maxPerTransaction: 100 },
          { tier: "BRONZE", maxPerTransaction: 500 },
          { tier: "SILVER", maxPerTransaction: 1000 },
          { tier: "GOLD", maxPerTransaction: 1000 },
          { tier: "PLATINUM", maxPerTransaction: 1000 },
        ],
        howToIncrease:
          "Reach a score of 20 for SILVER (1000 USD per transaction): +1 per completed payment, +5 per loan repaid on time, +3 per contract fulfilled, +2 per bet won.",
      },
    ],
  },
);
