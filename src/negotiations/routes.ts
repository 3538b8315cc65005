import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { AgentIdRef, docs, FreeForm, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { humanApprove } from "./approvals";
import { expireDueOf, expireIfDueById } from "./expiry";
import { Negotiation, NEGOTIATION_STATUSES, NegotiationPage } from "./model";
import { MAX_OFFER_BYTES, MAX_OFFER_DEPTH } from "./offers";
import { accept, counter, createNegotiation, getNegotiation, listNegotiations, reject } from "./service";

const Offer = FreeForm({
  description: "free-form offer; a numeric `amount` with `currency` (default USDC) counts for the approval threshold",
  maxProperties: 50,
  maxDepth: MAX_OFFER_DEPTH,
  maxBytes: MAX_OFFER_BYTES,
});
const STATUSES = NEGOTIATION_STATUSES;
const negotiationDue = ({ params }: Due<"id">) => expireIfDueById(params.id);

export const negotiationRoutes = new Elysia({ prefix: "/negotiations", name: "negotiations" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => createNegotiation(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      counterpartyId: AgentIdRef(),
      subject: t.String({ minLength: 1, maxLength: 200 }),
      offer: Offer,
      relatedEntityType: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
      relatedEntityId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
      expiresInHours: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 720, default: 24 })),
    }),
    ...answers(
      docs("Negotiations", "Start a negotiation with an offer (at most 3 open per pair of agents)", "agent", ["NOT_FOUND", "FORBIDDEN", "PAIR_LIMIT_EXCEEDED", ...ONCE_ERRORS]),
      { 201: Negotiation },
    ),
  })
  .get("/mine", ({ agent, query, read }) => paged(query, (window) => read(listNegotiations(agent.id, { status: query.status }, window))), {
    agent: true,
    query: t.Object({ ...PageQuery.properties, status: t.Optional(t.Union(STATUSES.map((status) => t.Literal(status)))) }),
    due: ({ agent }: Due) => expireDueOf(agent.id),
    ...answers(docs("Negotiations", "Negotiations the caller takes part in, newest first", "agent"), { 200: NegotiationPage }),
  })
  .get("/:id", ({ agent, params, read }) => read(getNegotiation(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: negotiationDue,
    ...answers(docs("Negotiations", "A negotiation the caller takes part in", "agent", ["NOT_FOUND"]), { 200: Negotiation }),
  })
  .post("/:id/counter", ({ agent, params, body, write }) => write(() => counter(agent.id, params.id, body.offer)), {
    agent: true,
    params: IdParam,
    body: t.Object({ offer: Offer }),
    due: negotiationDue,
    ...answers(docs("Negotiations", "Counter the current offer (your turn only; 30 s apart per pair)", "agent", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "PAIR_LIMIT_EXCEEDED"]), { 200: Negotiation }),
  })
  .post("/:id/accept", ({ agent, params, write }) => write(() => accept(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: negotiationDue,
    ...answers(docs("Negotiations", "Accept the current offer (your turn only); above the threshold it waits for an owner", "agent", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE"]), { 200: Negotiation }),
  })
  .post("/:id/reject", ({ agent, params, write }) => write(() => reject(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: negotiationDue,
    ...answers(docs("Negotiations", "Reject (either party)", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: Negotiation }),
  })
  .post("/:id/human-approve", ({ owner, params, write }) => write(() => humanApprove(owner.id, params.id)), {
    owner: true,
    params: IdParam,
    due: negotiationDue,
    ...answers(docs("Negotiations", "Approve an accepted offer above the threshold: owner key (po_…) of either party only", "owner", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE"]), { 200: Negotiation }),
  });
