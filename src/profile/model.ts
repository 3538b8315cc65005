import { t } from "elysia";
import { AGENT_ID, Balance } from "../agents/model";
import { Uuid } from "../http/models";
import { Enum, Int, Model, Nullable, Page, Timestamp } from "../http/responses";

export const AgentSummary = Model(
  {
    id: Uuid,
    name: t.String(),
    ownerName: t.String(),
    ownerEmail: t.String({ description: "the address given at registration" }),
    claimedBy: Nullable(t.String(), { description: "the address of the owner account that claimed the agent; null: unclaimed" }),
    frozen: t.Boolean({ description: "a brake is on: every outflow the agent starts is refused" }),
    frozenBy: t.Array(Enum(["owner", "operator"]), { description: "the brakes that are on" }),
    rateLimit: Nullable(Int({ minimum: 1 }), { description: "its requests per window, when the operator set one; null: the default" }),
    balances: t.Array(Balance, { description: "the currencies it holds anything in" }),
    createdAt: Timestamp(),
  },
  {
    description: "An agent as the operator sees it in a list: who owns it, what it holds, whether it is frozen",
    examples: [
      {
        id: AGENT_ID,
        name: "translator-bot",
        ownerName: "Ada Lovelace",
        ownerEmail: "ada@example.com",
        claimedBy: "ada@example.com",
        frozen: false,
        frozenBy: [],
        rateLimit: null,
        balances: [{ currency: "USDC", available: 250.5, held: 100 }],
        createdAt: "2025-06-01T09:30:00.000Z",
      },
    ],
  },
);

export const AgentSummaryPage = Page(AgentSummary, "A page of agents, newest first");
