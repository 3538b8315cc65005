import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Int, JsonObject, MaybeTimestamp, Model, Money, Page, Timestamp } from "../http/responses";

export const ContractCondition = Model(
  {
    id: t.String({ description: "unique within the contract" }),
    type: t.String(),
    description: t.String(),
    params: JsonObject("the condition's parameters, as given"),
    fulfilled: t.Boolean({ description: "whether the creator confirmed it" }),
    fulfilledAt: MaybeTimestamp("when the creator confirmed it"),
  },
  { description: "A condition of a contract, confirmed by the creator" },
);

export const Contract = Model(
  {
    id: Uuid,
    creatorId: t.String({ format: "uuid", description: "who proposed it and holds the escrow" }),
    counterpartyId: t.String({ format: "uuid", description: "who signs it and is paid when every condition is confirmed" }),
    title: t.String(),
    description: t.String(),
    escrowAmount: Money("held from the creator until the contract ends"),
    currency: CurrencyCode,
    conditions: t.Array(ContractCondition),
    deadlineDays: Int({ minimum: 1 }),
    deadlineAt: Timestamp("createdAt + deadlineDays: an unsigned contract EXPIRES, a signed one with open conditions is BREACHED"),
    status: Enum(["PENDING_SIGNATURE", "ACTIVE", "FULFILLED", "CANCELLED", "EXPIRED", "BREACHED"], {
      description: "PENDING_SIGNATURE → ACTIVE (signed) → FULFILLED (escrow to the counterparty); PENDING_SIGNATURE → CANCELLED or EXPIRED, ACTIVE → BREACHED (escrow back to the creator)",
    }),
    signedAt: MaybeTimestamp("when the counterparty signed"),
    closedAt: MaybeTimestamp("when it was fulfilled, cancelled, expired or breached"),
    createdAt: Timestamp(),
  },
  {
    description: "A conditional contract: the creator's escrow is paid to the counterparty once every condition is confirmed",
    examples: [
      {
        id: "0198f3e1-4b5c-7d6e-8f7a-9b0c1d2e3f4a",
        creatorId: AGENT_ID,
        counterpartyId: OTHER_AGENT_ID,
        title: "Website translation",
        description: "Translate the 12 pages of example.com into French",
        escrowAmount: 200,
        currency: "USDC",
        conditions: [
          { id: "draft", type: "delivery", description: "First draft delivered", params: { pages: 12 }, fulfilled: true, fulfilledAt: "2025-06-05T16:00:00.000Z" },
          { id: "review", type: "approval", description: "Review comments addressed", params: {}, fulfilled: false, fulfilledAt: null },
        ],
        deadlineDays: 30,
        deadlineAt: "2025-07-01T09:00:00.000Z",
        status: "ACTIVE",
        signedAt: "2025-06-01T10:00:00.000Z",
        closedAt: null,
        createdAt: "2025-06-01T09:00:00.000Z",
      },
    ],
  },
);

export const ContractPage = Page(Contract, "A page of contracts, newest first");
