import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { Amount, Uuid } from "../http/models";
import { Enum, Model, Money, Nullable, Page, Timestamp, MaybeTimestamp } from "../http/responses";
import { CURRENCIES } from "../money";
import { SCOPES } from "./scopes";
import { MAX_KEY_LIFETIME_MS } from "./create";

const MAX_ALLOWLIST = 1000;
const Scope = Enum(SCOPES, { description: "what the key may do; keys/scopes.ts maps each scope to its routes and MCP tools (docs/delegation.md)" });

const BudgetBody = t.Object(
  {
    perTransaction: t.Optional(Amount({ description: "the most one outflow made with this key may be" })),
    total: t.Optional(Amount({ description: "the most this key's outflows may add up to over its life (held amounts included)" })),
  },
  { additionalProperties: false },
);

export const KeyBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, description: "what the key is for (a sub-agent, a dashboard)" }),
  scopes: t.Array(Scope, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  budgets: t.Optional(
    t.Object(Object.fromEntries(CURRENCIES.map((currency) => [currency, t.Optional(BudgetBody)])), {
      additionalProperties: false,
      description: "budgets per currency; a currency not named has no budget of this key (the tier and the owner's policy still apply)",
    }),
  ),
  allowlist: t.Optional(Nullable(t.Array(Uuid, { maxItems: MAX_ALLOWLIST, description: "the only agents this key may send money to; null or absent: anyone" }))),
  expiresInSeconds: t.Optional(t.Integer({ minimum: 60, maximum: MAX_KEY_LIFETIME_MS / 1000, description: "lifetime in seconds; default 30 days, at most one year" })),
});

const BudgetAnswer = Model(
  {
    perTransaction: Nullable(Money(), { description: "the most one outflow may be; null: no such budget" }),
    total: Nullable(Money(), { description: "the most all outflows may add up to; null: no such budget" }),
    spent: Money("what this key's outflows have added up to (held amounts included)"),
    remaining: Nullable(Money(), { description: "what the total budget has left; null: no total budget" }),
  },
  { description: "A budget of the key in one currency, with what it has spent" },
);

const KEY_FIELDS = {
  id: Uuid,
  name: t.String(),
  scopes: t.Array(Scope),
  budgets: t.Record(t.String(), BudgetAnswer, { description: "per currency with a budget or spending" }),
  allowlist: Nullable(t.Array(Uuid), { description: "the only agents this key may send money to; null: anyone" }),
  parentKeyId: Nullable(Uuid, { description: "the restricted key that made this one; null: the agent key or the owner key" }),
  status: Enum(["ACTIVE", "EXPIRED", "REVOKED"] as const),
  createdAt: Timestamp(),
  expiresAt: Timestamp(),
  revokedAt: MaybeTimestamp("when it was revoked"),
  lastUsedAt: MaybeTimestamp("when a request last came with it, to the minute; null: never used"),
};

const EXAMPLE = {
  id: "0198f3a1-2d3e-7f40-8b5c-7d8e9f0a1b23",
  name: "research sub-agent",
  scopes: ["read", "pay"],
  budgets: { USDC: { perTransaction: 5, total: 50, spent: 12.5, remaining: 37.5 } },
  allowlist: [OTHER_AGENT_ID],
  parentKeyId: null,
  status: "ACTIVE",
  createdAt: "2025-01-01T00:00:00.000Z",
  expiresAt: "2025-01-31T00:00:00.000Z",
  revokedAt: null,
  lastUsedAt: "2025-01-03T09:41:00.000Z",
};

export const RestrictedKey = Model(KEY_FIELDS, { description: `A restricted key of agent ${AGENT_ID}'s: its scopes, budgets, allowlist and expiry`, examples: [EXAMPLE] });

export const NewRestrictedKey = Model(
  { ...KEY_FIELDS, apiKey: t.String({ description: "the key (pp_r_…). Shown only here: it is stored hashed" }) },
  { description: "The restricted key just made, with the key itself", examples: [{ ...EXAMPLE, budgets: { USDC: { perTransaction: 5, total: 50, spent: 0, remaining: 50 } }, lastUsedAt: null, apiKey: "pp_r_Rt5y7U9i1O3p5A7s9D1f3G5h7J9k1L3z5X7c9V1b3N5" }] },
);

export const CallingKey = Model(
  { agentId: Uuid, key: Nullable(RestrictedKey, { description: "the restricted key of this request; null: the agent's own API key (every scope)" }) },
  { description: "The key this request came with: what it may do and spend", examples: [{ agentId: AGENT_ID, key: EXAMPLE }] },
);

export const RestrictedKeyPage = Page(RestrictedKey, "The agent's restricted keys, newest first, with what each has spent");
