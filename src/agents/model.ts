import { t } from "elysia";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Int, Model, Money, Nullable, Page, Timestamp } from "../http/responses";
import { SCORE_CHANGES, type ScoreReason } from "./score";
import { TIERS, type Tier } from "./tiers";

export const WebhookUrl = t.Union([t.String({ format: "uri", maxLength: 2048 }), t.Null()], {
  description: "https URL that receives event POSTs; null disables delivery",
});

export const RegistrationBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  ownerName: t.String({ minLength: 1, maxLength: 100 }),
  ownerEmail: t.String({ format: "email", maxLength: 254 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  capabilities: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  webhookUrl: t.Optional(WebhookUrl),
});

// ---- Answers ----

/** Example ids shared by the examples of every model. */
export const AGENT_ID = "0198f3a1-0b2c-7d3e-8f4a-5b6c7d8e9f01";
export const OTHER_AGENT_ID = "0198f3a1-1c2d-7e3f-9a4b-6c7d8e9f0a12";

export const TierName = Enum(
  TIERS.map(({ tier }) => tier) as [Tier, ...Tier[]],
  { description: "reputation tier: UNRATED (score < 5), BRONZE (5+), SILVER (20+), GOLD (50+), PLATINUM (100+)" },
);

export const TierLimit = Model(
  { tier: TierName, maxPerTransaction: t.Number({ description: "the most one transaction may be worth, in USD" }) },
  { description: "A tier and its per-transaction limit", examples: [{ tier: "BRONZE", maxPerTransaction: 500 }] },
);

const EXAMPLE_AGENT = {
  id: AGENT_ID,
  name: "translator-bot",
  ownerName: "Ada Lovelace",
  ownerEmail: "ada@example.com",
  description: "Translates documents between English and French",
  capabilities: ["translation", "summarization"],
  webhookUrl: "https://agent.example.com/hooks/agentbank",
  score: 7,
  tier: "BRONZE",
  frozen: false,
  createdAt: "2025-06-01T09:30:00.000Z",
};

export const Agent = Model(
  {
    id: Uuid,
    name: t.String(),
    ownerName: t.String(),
    ownerEmail: t.String({ format: "email" }),
    description: Nullable(t.String()),
    capabilities: t.Array(t.String(), { description: "what the agent says it can do" }),
    webhookUrl: Nullable(t.String({ format: "uri" }), { description: "where events are POSTed; null when none" }),
    score: Int({ description: "reputation score (see GET /agents/{id}/reputation)" }),
    tier: TierName,
    frozen: t.Boolean({ description: "true while its owner or the operator has frozen it: every outflow it starts is refused (403 AGENT_FROZEN); money coming in is credited" }),
    createdAt: Timestamp(),
  },
  {
    description: "An agent's profile",
    examples: [EXAMPLE_AGENT],
  },
);

export const Balance = Model(
  {
    currency: CurrencyCode,
    available: Money("spendable now, in major units"),
    held: Money("held in escrow (loan offers, bets, contracts), in major units"),
  },
  { description: "An agent's balance in one currency", examples: [{ currency: "USDC", available: 250.5, held: 100 }] },
);

export const Registration = Model(
  {
    agent: Agent,
    apiKey: t.String({ description: "the agent's key (pp_...): send it as `Authorization: Bearer <apiKey>`. Shown only here." }),
    ownerKey: t.Optional(
      t.String({ description: "only where the operator set OWNER_KEY_AT_REGISTRATION=true (and in agentbank dev): the human owner's key (po_...), for the policy and approvals. Shown only here. Otherwise the owner claims the agent by the link mailed to ownerEmail (onboarding.owner)" }),
    ),
    webhookSecret: t.Optional(t.String({ description: "signing secret of webhook deliveries (whsec_...); present only when webhookUrl was given. Shown only here." })),
    wallet: Model(
      {
        address: t.String({ description: "the agent's USDC deposit address (0x...) on the layer-2 chain" }),
        balances: t.Array(Balance, { description: "one per currency, all zero at registration" }),
      },
      { description: "The agent's new wallet" },
    ),
    onboarding: Model(
      {
        message: t.String(),
        owner: Model(
          {
            status: Enum(["UNCLAIMED", "KEY"] as const, { description: "UNCLAIMED: a claim link went to ownerEmail; KEY: ownerKey is in this answer" }),
            claimLinkSentTo: t.Optional(t.String({ description: "where the claim link went (ownerEmail)" })),
            claimLinkExpiresAt: t.Optional(Timestamp("until when the claim link works")),
            meanwhile: t.String(),
          },
          { description: "Who owns the agent: its owner claims it by the link mailed to ownerEmail, or (OWNER_KEY_AT_REGISTRATION) holds ownerKey" },
        ),
        authentication: t.String(),
        fund: t.String(),
        limits: Model(
          {
            tier: TierName,
            maxPerTransaction: t.Number({ description: "in USD" }),
            rateLimit: Model(
              { requests: Int(), windowSeconds: Int() },
              { description: "requests allowed per window for this agent's key" },
            ),
          },
          { description: "The new agent's limits" },
        ),
        tiers: t.Array(TierLimit),
        docs: t.String({ description: "where the API reference is served" }),
      },
      { description: "How to start: store the keys, authenticate, fund the wallet" },
    ),
  },
  {
    description: "A new agent, with its keys (shown only once) and first steps",
    examples: [
      {
        agent: { ...EXAMPLE_AGENT, score: 0, tier: "UNRATED" },
        apiKey: "pp_Xq3v9ZkT1bN7yR2mW8cJ5sD0fH4gL6aP1eU9iO3tY7w",
        webhookSecret: "whsec_MfKQ9r8GbYcNcY6GvR8eN1UvPxPZ5i4C",
        wallet: {
          address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
          balances: [
            { currency: "USDC", available: 0, held: 0 },
            { currency: "USDT", available: 0, held: 0 },
            { currency: "USD", available: 0, held: 0 },
            { currency: "EUR", available: 0, held: 0 },
            { currency: "BTC", available: 0, held: 0 },
          ],
        },
        onboarding: {
          message: "Store apiKey now: it is shown only once.",
          owner: {
            status: "UNCLAIMED",
            claimLinkSentTo: "owner@example.com",
            claimLinkExpiresAt: "2025-06-08T12:00:00.000Z",
            meanwhile:
              "Until the owner opens the claim link and confirms, outflows above the service's default policy wait for the owner (GET /owner/policy shows it to the owner; 202 AWAITING_APPROVAL to you).",
          },
          authentication: "Send Authorization: Bearer <apiKey> on every request.",
          fund: "Deposit USDC to your wallet address (chain) or ask the operator for a deposit (POST /admin/deposits).",
          limits: { tier: "UNRATED", maxPerTransaction: 100, rateLimit: { requests: 100, windowSeconds: 60 } },
          tiers: [
            { tier: "UNRATED", maxPerTransaction: 100 },
            { tier: "BRONZE", maxPerTransaction: 500 },
            { tier: "SILVER", maxPerTransaction: 1000 },
            { tier: "GOLD", maxPerTransaction: 1000 },
            { tier: "PLATINUM", maxPerTransaction: 1000 },
          ],
          docs: "/swagger",
        },
      },
    ],
  },
);

/** The body of a key rotation (agent key or owner key): empty, or whether the restricted keys the old key made are kept. */
export const RotationBody = t.Object(
  { keepRestrictedKeys: t.Optional(t.Boolean({ description: "true: the restricted keys the old key made keep working; default false: they are revoked with it" })) },
  { additionalProperties: false },
);

export const RevokedKeys = Int({ description: "how many restricted keys ended with the old key: those it made, and every key made from those" });

export const RotatedKey = Model(
  { apiKey: t.String({ description: "the new API key (pp_...); the old one no longer works. Shown only here." }), revokedKeys: RevokedKeys },
  { description: "The agent's new API key", examples: [{ apiKey: "pp_Rt5y7U9i1O3p5A7s9D1f3G5h7J9k1L3z5X7c9V1b3N5", revokedKeys: 2 }] },
);

export const Reputation = Model(
  {
    agentId: Uuid,
    score: Int(),
    tier: TierName,
    maxPerTransaction: t.Number({ description: "the tier's per-transaction limit, in USD" }),
    events: t.Array(
      Model(
        {
          reason: Enum(Object.keys(SCORE_CHANGES) as [ScoreReason, ...ScoreReason[]]),
          change: Int({ description: "points added (negative: removed)" }),
          reference: Nullable(
            Model(
              { type: t.String({ description: "payment, loan, contract, bet or x402" }), id: Nullable(t.String()) },
              { description: "what caused the change" },
            ),
          ),
          createdAt: Timestamp(),
        },
        { description: "One change of the score" },
      ),
      { description: "the latest 20 changes, newest first" },
    ),
  },
  {
    description: "An agent's reputation: score, tier and latest score events",
    examples: [
      {
        agentId: AGENT_ID,
        score: 7,
        tier: "BRONZE",
        maxPerTransaction: 500,
        events: [
          { reason: "LOAN_REPAID_ON_TIME", change: 5, reference: { type: "loan", id: "loan_q1w2e3r4t5y6u7i8o9p0a1s2" }, createdAt: "2025-06-03T10:00:00.000Z" },
          { reason: "PAYMENT_COMPLETED", change: 1, reference: { type: "payment", id: "0198f3a2-5c1e-7a4b-9d2e-3f4a5b6c7d8e" }, createdAt: "2025-06-01T12:00:00.000Z" },
        ],
      },
    ],
  },
);

const blockFields = {
  agentId: t.String({ format: "uuid", description: "the blocked agent" }),
  name: t.String({ description: "the blocked agent's name" }),
  reason: Nullable(t.String()),
  blockedAt: Timestamp(),
};

const EXAMPLE = { agentId: OTHER_AGENT_ID, name: "spam-bot", reason: "unsolicited messages", blockedAt: "2025-06-02T08:00:00.000Z" };

export const Block = Model(blockFields, { description: "An agent the caller has blocked", examples: [EXAMPLE] });

export const BlockPage = Page(Block, "A page of the agents the caller has blocked, newest first");

export const Blocked = Model(
  { ...blockFields, blocked: t.Literal(true) },
  { description: "The block now in place (blocking twice keeps the first block)", examples: [{ ...EXAMPLE, blocked: true }] },
);

export const Unblocked = Model(
  { agentId: Uuid, blocked: t.Literal(false) },
  { description: "The block was lifted", examples: [{ agentId: OTHER_AGENT_ID, blocked: false }] },
);

export const RateLimit = Model(
  {
    agentId: Uuid,
    rateLimit: Int({ minimum: 1, description: "requests allowed per window" }),
    windowSeconds: Int({ description: "the rate-limit window" }),
  },
  { description: "An agent's rate limit", examples: [{ agentId: AGENT_ID, rateLimit: 600, windowSeconds: 60 }] },
);

const BrakeOn = (who: string) =>
  Nullable(Model({ since: Timestamp(`when ${who} froze it`), reason: Nullable(t.String(), { description: `why, as ${who} said (null: no reason given)` }) }, { description: `${who}'s brake` }), {
    description: `${who}'s brake, or null when ${who} has not frozen it`,
  });

export const Freeze = Model(
  {
    agentId: Uuid,
    frozen: t.Boolean({ description: "whether any brake is on: then every outflow the agent starts is refused with 403 AGENT_FROZEN" }),
    changed: t.Boolean({ description: "whether this request changed it (false: the brake already was so; nothing was recorded)" }),
    brakes: Model({ owner: BrakeOn("the owner"), operator: BrakeOn("the operator") }, { description: "Each party's brake: each lifts only its own" }),
  },
  {
    description: "The brakes on an agent after a freeze or an unfreeze",
    examples: [{ agentId: AGENT_ID, frozen: true, changed: true, brakes: { owner: { since: "2025-06-02T08:00:00.000Z", reason: "its key leaked" }, operator: null } }],
  },
);

export const FreezeBody = t.Optional(
  t.Object({ reason: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "why, kept with the record" })) }, { additionalProperties: false }),
);
