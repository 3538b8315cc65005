import { Elysia, t } from "elysia";
import { read, write } from "../db";
import { auth } from "../auth/macros";
import { docs, IdParam, Metadata, paged, PageQuery, Uuid } from "../http/models";
import { mutation } from "../auth/mutation";
import { getMessage, inbox, markRead, sendMessage, unreadCount } from "./service";
import { answers } from "../http/responses";
import { Message, MessagePage, UnreadCount } from "./model";

export const messagingRoutes = new Elysia({ prefix: "/messages", name: "messaging" })
  .use(auth)
  .post(
    "",
    ({ agent, body, headers, request, set }) =>
      mutation({ agentId: agent.id, headers, request, body, set }, 201, () => sendMessage(agent.id, body)),
    {
      agent: true,
      body: t.Object({
        recipientId: Uuid,
        subject: t.String({ minLength: 1, maxLength: 200 }),
        body: t.String({ minLength: 1, maxLength: 10_000 }),
        metadata: t.Optional(Metadata),
      }),
      ...answers(
        docs("Messaging", "Send a direct message (at most 20 per hour to the same agent)", "agent", [
          "NOT_FOUND", "FORBIDDEN", "PAIR_LIMIT_EXCEEDED", "IDEMPOTENCY_KEY_REUSED",
        ]),
        { 201: Message },
      ),
    },
  )
  .get(
    "/inbox",
    ({ agent, query }) => paged(query, (window) => read(inbox(agent.id, { unreadOnly: query.unreadOnly, type: query.type }, window))),
    {
      agent: true,
      query: t.Object({
        ...PageQuery.properties,
        unreadOnly: t.Optional(t.Boolean()),
        type: t.Optional(t.String({ minLength: 1, maxLength: 50, description: "direct, or an event name such as payment.received" })),
      }),
      ...answers(docs("Messaging", "Messages and event notices the caller received, newest first", "agent"), { 200: MessagePage }),
    },
  )
  .get("/unread-count", async ({ agent }) => ({ unreadCount: await read(unreadCount(agent.id)) }), {
    agent: true,
    ...answers(docs("Messaging", "How many inbox items are unread", "agent"), { 200: UnreadCount }),
  })
  .post("/:messageId/read", ({ agent, params }) => write(() => markRead(agent.id, params.messageId)), {
    agent: true,
    params: t.Object({ messageId: Uuid }),
    ...answers(docs("Messaging", "Mark a received message read (recipient only)", "agent", ["NOT_FOUND"]), { 200: Message }),
  })
  .get("/:id", ({ agent, params }) => read(getMessage(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Messaging", "A message the caller sent or received", "agent", ["NOT_FOUND"]), { 200: Message }),
  });
