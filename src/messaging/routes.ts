import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS } from "../door";
import { AgentIdRef, docs, IdParam, Metadata, paged, PageQuery, Uuid } from "../http/models";
import { answers } from "../http/responses";
import { Message, MessagePage, UnreadCount } from "./model";
import { getMessage, inbox, markRead, sendMessage, unreadCountView } from "./service";

export const messagingRoutes = new Elysia({ prefix: "/messages", name: "messaging" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => sendMessage(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      recipientId: AgentIdRef(),
      subject: t.String({ minLength: 1, maxLength: 200 }),
      body: t.String({ minLength: 1, maxLength: 10_000 }),
      metadata: t.Optional(Metadata),
    }),
    ...answers(docs("Messaging", "Send a direct message (at most 20 per hour to the same agent)", "agent", ["NOT_FOUND", "FORBIDDEN", "PAIR_LIMIT_EXCEEDED", ...ONCE_ERRORS]), { 201: Message }),
  })
  .get("/inbox", ({ agent, query, read }) => paged(query, (window) => read(inbox(agent.id, { unreadOnly: query.unreadOnly, type: query.type }, window))), {
    agent: true,
    query: t.Object({
      ...PageQuery.properties,
      unreadOnly: t.Optional(t.Boolean()),
      type: t.Optional(t.String({ minLength: 1, maxLength: 50, description: "direct, or an event name such as payment.received" })),
    }),
    ...answers(docs("Messaging", "Messages and event notices the caller received, newest first", "agent"), { 200: MessagePage }),
  })
  .get("/unread-count", ({ agent, read }) => read(unreadCountView(agent.id)), {
    agent: true,
    ...answers(docs("Messaging", "How many inbox items are unread", "agent"), { 200: UnreadCount }),
  })
  .post("/:messageId/read", ({ agent, params, write }) => write(() => markRead(agent.id, params.messageId)), {
    agent: true,
    params: t.Object({ messageId: Uuid }),
    ...answers(docs("Messaging", "Mark a received message read (recipient only)", "agent", ["NOT_FOUND"]), { 200: Message }),
  })
  .get("/:id", ({ agent, params, read }) => read(getMessage(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Messaging", "A message the caller sent or received", "agent", ["NOT_FOUND"]), { 200: Message }),
  });
