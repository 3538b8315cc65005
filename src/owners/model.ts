import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID, RevokedKeys } from "../agents/model";
import { Amount, PageQuery, Uuid } from "../http/models";
import { CurrencyCode, Enum, Int, JsonObject, MaybeTimestamp, Model, Money, Nullable, Pagination, Timestamp } from "../http/responses";
import { OUTFLOW_KINDS } from "../outflows/approvals";

export const MAX_ALLOWLIST = 1000;

/** An amount per currency, in major units; a currency not named has no limit of this kind. */
const PerCurrency = (description: string) =>
  t.Object(
    { USDC: t.Optional(Amount()), USDT: t.Optional(Amount()), USD: t.Optional(Amount()), EUR: t.Optional(Amount()), BTC: t.Optional(Amount()) },
    { additionalProperties: false, description },
  );

const PerCurrencyAnswer = (description: string) =>
  t.Object(
    { USDC: t.Optional(Money()), USDT: t.Optional(Money()), USD: t.Optional(Money()), EUR: t.Optional(Money()), BTC: t.Optional(Money()) },
    { additionalProperties: false, description },
  );

const PARTS = {
  perTransaction: "the most one outflow may be, per currency",
  daily: "the most the agent's outflows may add up to in any 24 h, per currency",
  allowlist: "the only agents the agent may send money to; null: anyone",
  approvalAbove: "outflows above this amount wait for the owner's approval, per currency",
};

export const PolicyBody = t.Object(
  {
    perTransaction: t.Optional(PerCurrency(PARTS.perTransaction)),
    daily: t.Optional(PerCurrency(PARTS.daily)),
    allowlist: t.Optional(Nullable(t.Array(Uuid, { maxItems: MAX_ALLOWLIST, description: PARTS.allowlist }))),
    approvalAbove: t.Optional(PerCurrency(PARTS.approvalAbove)),
  },
  { description: "The whole policy: it replaces the current one; a part left out limits nothing" },
);

export const Policy = Model(
  {
    agentId: Uuid,
    perTransaction: PerCurrencyAnswer(PARTS.perTransaction),
    daily: PerCurrencyAnswer(PARTS.daily),
    allowlist: Nullable(t.Array(Uuid), { description: PARTS.allowlist }),
    approvalAbove: PerCurrencyAnswer(PARTS.approvalAbove),
    spentLast24h: PerCurrencyAnswer("what went out in the last 24 h (the daily cap's window), per currency with outflows"),
    remainingToday: PerCurrencyAnswer("what the daily cap still allows now, per currency with a daily cap"),
  },
  {
    description:
      "The owner's spending policy for its agent. Each limit is only ever tighter than the reputation tier's: an outflow must pass both. Checked on every outflow: payments, x402, bets, loan offers, contracts, subscriptions, bookings, withdrawals.",
    examples: [
      {
        agentId: AGENT_ID,
        perTransaction: { USDC: 50 },
        daily: { USDC: 200 },
        allowlist: null,
        approvalAbove: { USDC: 20 },
        spentLast24h: { USDC: 35.5 },
        remainingToday: { USDC: 164.5 },
      },
    ],
  },
);

export const APPROVAL_STATUSES = ["PENDING", "APPROVED", "DECLINED", "EXPIRED", "FAILED"] as const;

export const Approval = Model(
  {
    id: t.String({ description: "the approval's id; for a negotiation, the negotiation's id" }),
    kind: Enum([...OUTFLOW_KINDS, "NEGOTIATION"], { description: "what is waiting: an outflow of that kind, or an accepted negotiation above the threshold" }),
    status: Enum(APPROVAL_STATUSES, {
      description: "PENDING (waiting for the owner), APPROVED (made), DECLINED, EXPIRED (not decided within 24 h, or the restricted key that asked was revoked or expired first), FAILED (approved, but it could no longer be made: see reason)",
    }),
    agentId: Uuid,
    agentName: t.String(),
    amount: Nullable(Money(), { description: "null for a negotiation whose offer names no amount" }),
    held: Money("what of the agent's money waits in escrow for this while PENDING: the amount, or for a borrow its collateral; 0 once decided, and for negotiations"),
    currency: Nullable(CurrencyCode),
    usdValue: Nullable(t.Number({ description: "the amount in USD at the reference rates, rounded to cents" })),
    counterpartyId: Nullable(t.String({ format: "uuid" }), { description: "who would receive it; null: nobody named yet, or an address outside the service" }),
    counterpartyName: Nullable(t.String()),
    terms: JsonObject("exactly what the agent asked for (the request, or the accepted offer); this is what runs once approved"),
    termsHash: t.String({ description: "SHA-256 of the canonical terms; send it with approve to bind the approval to what you saw" }),
    reason: Nullable(t.String({ description: "why it was declined, expired or failed: a code, a colon, an explanation" })),
    result: Nullable(JsonObject("what the approved outflow answered (the payment, the bet…)")),
    keyId: Nullable(Uuid, { description: "the agent's restricted key (pp_r_…) whose request was held; null: the agent key, and for negotiations" }),
    keyName: Nullable(t.String(), { description: "that key's name" }),
    createdAt: Timestamp(),
    expiresAt: MaybeTimestamp("when a PENDING outflow expires and its hold is released; null for negotiations, which wait"),
    decidedAt: MaybeTimestamp("when it was approved, declined, expired or failed"),
  },
  {
    description: "Something of the agent's waiting for (or decided by) its owner",
    examples: [
      {
        id: "0198f3d0-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
        kind: "PAYMENT",
        status: "PENDING",
        agentId: AGENT_ID,
        agentName: "research-agent",
        amount: 4800,
        held: 4800,
        currency: "USDC",
        usdValue: 4800,
        counterpartyId: OTHER_AGENT_ID,
        counterpartyName: "translator-agent",
        terms: { toAgentId: OTHER_AGENT_ID, amount: 4800, currency: "USDC", reason: "annual data licence" },
        termsHash: "3f7a1c9e0b2d4f6a8c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f5a",
        reason: null,
        result: null,
        keyId: "0198f3a1-2d3e-7f40-8b5c-7d8e9f0a1b23",
        keyName: "research sub-agent",
        createdAt: "2025-06-01T12:00:00.000Z",
        expiresAt: "2025-06-02T12:00:00.000Z",
        decidedAt: null,
      },
    ],
  },
);

export const ApprovalPage = Model(
  { data: t.Array(Approval), pagination: Pagination, pending: Int({ minimum: 0, description: "how many are PENDING, over all pages" }) },
  {
    description: "A page of the agent's approvals: PENDING first, then newest first",
    examples: [{ data: Approval.examples, pagination: { total: 1, limit: 20, offset: 0, hasMore: false, nextAfter: null }, pending: 1 }],
  },
);

export const ApprovalQuery = t.Object({
  // Literals, not t.UnionEnum (which Elysia defaults to its first value).
  status: t.Optional(t.Union(APPROVAL_STATUSES.map((status) => t.Literal(status)), { description: "only approvals in this status" })),
  ...PageQuery.properties,
});

export const DecisionBody = t.Optional(
  t.Object(
    { termsHash: t.Optional(t.String({ pattern: "^[0-9a-f]{64}$", description: "the termsHash you were shown: approving or declining fails (409) if the terms held are not these" })) },
    { additionalProperties: false },
  ),
);

export const RotatedOwnerKey = Model(
  { ownerKey: t.String({ description: "the new owner key (po_...); the old one and its console sessions no longer work. Shown only here." }), revokedKeys: RevokedKeys },
  { description: "The owner's new key", examples: [{ ownerKey: "po_Qw3e5R7t9Y1u3I5o7P9a1S3d5F7g9H1j3K5l7Z9x1C3", revokedKeys: 1 }] },
);
