import { t } from "elysia";
import { AGENT_ID, Balance, OTHER_AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Model, Money, Nullable, Page, Timestamp } from "../http/responses";
import type { HistoryType } from "../ledger/ledger";

export const WalletBalance = Model(
  { agentId: Uuid, balances: t.Array(Balance, { description: "one per currency" }) },
  {
    description: "The caller's available and held balance in every currency",
    examples: [
      {
        agentId: AGENT_ID,
        balances: [
          { currency: "USDC", available: 250.5, held: 100 },
          { currency: "USDT", available: 0, held: 0 },
          { currency: "USD", available: 20, held: 0 },
          { currency: "EUR", available: 0, held: 0 },
          { currency: "BTC", available: 0.0015, held: 0 },
        ],
      },
    ],
  },
);

// Every HistoryType, once: TypeScript refuses this object if the ledger's type gains or loses a value.
const HISTORY_TYPES = Object.keys({
  PAYMENT_SENT: true,
  PAYMENT_RECEIVED: true,
  DEPOSIT: true,
  WITHDRAWAL: true,
  WITHDRAWAL_RETURNED: true,
  ESCROW_HOLD: true,
  ESCROW_RELEASE: true,
  ESCROW_PAYOUT: true,
  LOAN_DISBURSED: true,
  LOAN_REPAYMENT: true,
  X402_PAYMENT: true,
  X402_REFUND: true,
  X402_SALE: true,
  CORRECTION: true,
  SYSTEM: true,
} satisfies Record<HistoryType, true>) as [HistoryType, ...HistoryType[]];

export const HistoryEntry = Model(
  {
    id: t.String({ description: "the posting's id (a decimal number as a string); later entries have larger ids" }),
    type: Enum(HISTORY_TYPES, { description: "what moved the money" }),
    amount: t.Number({ description: "signed, in major units: negative when money left the available balance" }),
    currency: CurrencyCode,
    counterpartyId: Nullable(t.String(), { description: "the other agent, when there is one" }),
    reason: Nullable(t.String(), { description: "the payment's reason, when the movement is a payment (direct, subscription or booking) that has one" }),
    keyId: Nullable(t.String({ format: "uuid" }), {
      description: "the caller's restricted key (pp_r_…) whose request made this movement; null: the agent key, the owner, the service, or the other party's request",
    }),
    reference: Model(
      { type: t.String({ description: "payment, deposit, withdrawal, loan_offer, loan, bet, contract, x402, ..." }), id: t.String() },
      { description: "the record that caused the movement" },
    ),
    createdAt: Timestamp(),
  },
  {
    description: "One movement of the caller's available balance",
    examples: [
      {
        id: "1042",
        type: "PAYMENT_SENT",
        amount: -12.5,
        currency: "USDC",
        counterpartyId: OTHER_AGENT_ID,
        reason: "translation of 3 pages",
        keyId: "0198f3a1-2d3e-7f40-8b5c-7d8e9f0a1b23",
        reference: { type: "payment", id: "0198f3a2-5c1e-7a4b-9d2e-3f4a5b6c7d8e" },
        createdAt: "2025-06-01T12:00:00.000Z",
      },
    ],
  },
);

export const HistoryPage = Page(HistoryEntry, "A page of the caller's balance movements, newest first");

export const Deposit = Model(
  {
    id: Uuid,
    agentId: t.String({ format: "uuid" }),
    amount: Money(),
    currency: CurrencyCode,
    reference: Nullable(t.String(), { description: "the operator's reference, as given" }),
    createdAt: Timestamp(),
  },
  {
    description: "Money from outside credited to an agent",
    examples: [
      {
        id: "0198f420-5b6c-7d7e-8f8a-9b0c1d2e3f4a",
        agentId: AGENT_ID,
        amount: 500,
        currency: "USDC",
        reference: "wire 2025-06-01 #4471",
        createdAt: "2025-06-01T08:00:00.000Z",
      },
    ],
  },
);

export const Correction = Model(
  {
    id: Uuid,
    agentId: t.String({ format: "uuid" }),
    direction: Enum(["credit", "debit"], { description: "credit: added to the agent's available balance; debit: taken from it" }),
    amount: Money(),
    currency: CurrencyCode,
    reason: t.String({ description: "the operator's reason, as given (the agent is told it)" }),
    createdAt: Timestamp(),
  },
  {
    description: "A compensating journal entry between an agent's available balance and the outside world (the counter-account of deposits)",
    examples: [
      {
        id: "0198f421-6c7d-7e8f-9a0b-1c2d3e4f5a6b",
        agentId: AGENT_ID,
        direction: "debit",
        amount: 450,
        currency: "USDC",
        reason: "deposit 0198f420 credited 500 instead of 50",
        createdAt: "2025-06-01T08:30:00.000Z",
      },
    ],
  },
);
