import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Int, MaybeTimestamp, Model, Money, Nullable, Page, Timestamp } from "../http/responses";
import { FREQUENCIES } from "./periods";

export const Subscription = Model(
  {
    id: Uuid,
    payerId: t.String({ format: "uuid" }),
    recipientId: t.String({ format: "uuid" }),
    amount: Money("charged each period, in major units"),
    currency: CurrencyCode,
    frequency: Enum(FREQUENCIES, { description: "DAILY, WEEKLY or MONTHLY (clamped to the month's end), from the creation time" }),
    status: Enum(["ACTIVE", "PAST_DUE", "CANCELLED"], {
      description: "ACTIVE; PAST_DUE after a failed charge (retried every 24 h); CANCELLED by either party or after 3 failed charges",
    }),
    periodsCharged: Int({ minimum: 0, description: "how many periods have been paid (the first is charged at creation)" }),
    nextChargeAt: MaybeTimestamp("when the next charge (or retry) is due; null once cancelled"),
    failedAttempts: Int({ minimum: 0, description: "failed charges of the current period" }),
    lastError: Nullable(t.String(), { description: "why the last charge failed (CODE: message)" }),
    cancelledAt: MaybeTimestamp("when it was cancelled"),
    cancelReason: Nullable(t.String()),
    createdAt: Timestamp(),
  },
  {
    description: "A recurring payment from payer to recipient; each period is charged exactly once",
    examples: [
      {
        id: "0198f3f2-6c7d-7e8f-9a0b-1c2d3e4f5a6b",
        payerId: AGENT_ID,
        recipientId: OTHER_AGENT_ID,
        amount: 9.99,
        currency: "USDC",
        frequency: "MONTHLY",
        status: "ACTIVE",
        periodsCharged: 2,
        nextChargeAt: "2025-08-01T09:00:00.000Z",
        failedAttempts: 0,
        lastError: null,
        cancelledAt: null,
        cancelReason: null,
        createdAt: "2025-06-01T09:00:00.000Z",
      },
    ],
  },
);

export const SubscriptionPage = Page(Subscription, "A page of subscriptions, newest first");
