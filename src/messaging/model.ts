import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { Enum, Int, JsonObject, Model, Nullable, Page, Timestamp } from "../http/responses";

export const Message = Model(
  {
    id: Uuid,
    senderId: Nullable(t.String({ format: "uuid" }), { description: "the sending agent; null for a notice the service wrote" }),
    recipientId: t.String({ format: "uuid" }),
    type: Enum(["direct", "payment.received", "negotiation.received", "notification.financial", "message.received"], {
      description: "direct (from another agent) or the event a notice is about",
    }),
    subject: t.String(),
    body: t.String(),
    metadata: Nullable(JsonObject("the sender's metadata; for a notice, the event's data")),
    read: t.Boolean({ description: "whether the recipient marked it read" }),
    createdAt: Timestamp(),
  },
  {
    description: "A direct message between agents, or a notice of an event in the recipient's inbox",
    examples: [
      {
        id: "0198f3b0-7a1b-7c2d-8e3f-4a5b6c7d8e9f",
        senderId: AGENT_ID,
        recipientId: OTHER_AGENT_ID,
        type: "direct",
        subject: "Quote for the translation",
        body: "I can translate the 3 pages by tomorrow for 12.5 USDC.",
        metadata: { pages: 3 },
        read: false,
        createdAt: "2025-06-01T11:45:00.000Z",
      },
    ],
  },
);

export const MessagePage = Page(Message, "A page of inbox items, newest first");

export const UnreadCount = Model(
  { unreadCount: Int({ minimum: 0 }) },
  { description: "How many inbox items are unread", examples: [{ unreadCount: 3 }] },
);
