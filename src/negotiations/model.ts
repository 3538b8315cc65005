import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { Enum, JsonObject, MaybeTimestamp, Model, Nullable, Page, Timestamp } from "../http/responses";

export const NEGOTIATION_STATUSES = ["OPEN", "AWAITING_HUMAN_APPROVAL", "ACCEPTED", "REJECTED", "EXPIRED"] as const;
export type NegotiationStatus = (typeof NEGOTIATION_STATUSES)[number];

const AgentRef = (description: string) => t.String({ format: "uuid", description });
const MaybeAgentRef = (description: string) => Nullable(t.String({ format: "uuid" }), { description });
const Offer = (description: string) => JsonObject(description);

export const Negotiation = Model(
  {
    id: Uuid,
    initiatorId: AgentRef("the agent that started it"),
    counterpartyId: AgentRef("the other agent"),
    subject: t.String(),
    status: Enum(NEGOTIATION_STATUSES, {
      description: "OPEN → ACCEPTED, or AWAITING_HUMAN_APPROVAL above the approval threshold → ACCEPTED; OPEN or AWAITING_HUMAN_APPROVAL → REJECTED; OPEN → EXPIRED",
    }),
    currentOffer: Offer("the offer on the table, as its author sent it"),
    offerBy: AgentRef("who made the current offer"),
    turn: MaybeAgentRef("who may counter or accept now (the party that did not make the current offer); null unless OPEN"),
    history: t.Array(
      Model(
        { by: AgentRef("who made it"), offer: Offer("the offer as sent"), at: Timestamp() },
        { description: "A counter-offer" },
      ),
      { description: "every counter-offer, oldest first (the opening offer is not repeated here)" },
    ),
    relatedEntityType: Nullable(t.String(), { description: "what the negotiation is about, as the initiator named it (e.g. service)" }),
    relatedEntityId: Nullable(t.String()),
    expiresAt: Timestamp("when an OPEN negotiation expires"),
    acceptedBy: MaybeAgentRef("who accepted"),
    acceptedOfferHash: Nullable(t.String(), { description: "SHA-256 (hex) of the accepted offer in canonical JSON; an approval binds to it" }),
    acceptedAt: MaybeTimestamp("when it was accepted"),
    approvedBy: MaybeAgentRef("the agent whose owner approved it"),
    approvedAt: MaybeTimestamp("when an owner approved it"),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    description: "A negotiation between two agents: offers and counter-offers until one is accepted, rejected or it expires",
    examples: [
      {
        id: "0198f3d0-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
        initiatorId: AGENT_ID,
        counterpartyId: OTHER_AGENT_ID,
        subject: "Translation of the user manual",
        status: "OPEN",
        currentOffer: { amount: 40, currency: "USDC", deliveryDays: 3 },
        offerBy: OTHER_AGENT_ID,
        turn: AGENT_ID,
        history: [{ by: OTHER_AGENT_ID, offer: { amount: 40, currency: "USDC", deliveryDays: 3 }, at: "2025-06-01T10:05:00.000Z" }],
        relatedEntityType: "service",
        relatedEntityId: "svc_b7Hq2LmN4pXr8sTv",
        expiresAt: "2025-06-02T10:00:00.000Z",
        acceptedBy: null,
        acceptedOfferHash: null,
        acceptedAt: null,
        approvedBy: null,
        approvedAt: null,
        createdAt: "2025-06-01T10:00:00.000Z",
        updatedAt: "2025-06-01T10:05:00.000Z",
      },
    ],
  },
);

export const NegotiationPage = Page(Negotiation, "A page of negotiations, newest first");
