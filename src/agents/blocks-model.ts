import { t } from "elysia";
import { OTHER_AGENT_ID } from "./model";
import { Uuid } from "../http/models";
import { Model, Nullable, Page, Timestamp } from "../http/responses";

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
