import { Elysia, t } from "elysia";
import { WebhookUrl } from "../agents/model";
import { iso } from "../clock";
import { all, FOR_UPDATE, get, read, run, write } from "../db";
import { auth } from "../http/auth";
import { docs, paged, PageQuery } from "../http/models";
import { webhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { answers } from "../http/responses";
import { Webhook, WebhookDeliveryPage } from "./model";

type DeliveryRow = {
  id: string;
  eventId: string;
  event: string;
  url: string;
  outcome: string;
  httpStatus: bigint | null;
  error: string | null;
  durationMs: bigint;
  createdAt: bigint;
};

/** Sets or clears the URL. The signing secret is created with the first URL and kept across changes. */
async function setWebhook(agentId: string, url: string | null) {
  if (url !== null) await assertCallable(url, "webhookUrl");
  const created = webhookSecret();
  return write(function* () {
    const current = (yield* get<{ secret: string | null }>(`SELECT webhook_secret AS secret FROM agents WHERE id = ? ${FOR_UPDATE}`, agentId))!;
    const update = (webhookUrl: string | null, secret: string | null) => run("UPDATE agents SET webhook_url = ?, webhook_secret = ? WHERE id = ?", webhookUrl, secret, agentId);
    if (url === null) {
      yield* update(null, current.secret);
      return { agentId, webhookUrl: null };
    }
    const secret = current.secret ?? created;
    yield* update(url, secret);
    return { agentId, webhookUrl: url, secret };
  });
}

function* deliveriesOf(agentId: string, limit: number, offset: number) {
  const total = (yield* get<{ n: bigint }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE agent_id = ?", agentId))!;
  const rows = yield* all<DeliveryRow>(
    `SELECT id, event_id AS eventId, event, url, outcome, http_status AS httpStatus, error, duration_ms AS durationMs, created_at AS createdAt
     FROM webhook_deliveries WHERE agent_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    agentId,
    limit,
    offset,
  );
  const data = rows.map((row) => ({
    id: row.id,
    eventId: row.eventId,
    event: row.event,
    url: row.url,
    outcome: row.outcome,
    httpStatus: row.httpStatus === null ? null : Number(row.httpStatus),
    error: row.error,
    durationMs: Number(row.durationMs),
    createdAt: iso(Number(row.createdAt)),
  }));
  return { data, total: Number(total.n) };
}

export const webhookRoutes = new Elysia({ prefix: "/agents/me", name: "webhooks" })
  .use(auth)
  .put("/webhook", ({ agent, body }) => setWebhook(agent.id, body.webhookUrl), {
    agent: true,
    body: t.Object({ webhookUrl: WebhookUrl }),
    ...answers(docs("Webhooks", "Set the webhook URL (returns the signing secret) or null to stop deliveries", "agent"), { 200: Webhook }),
  })
  .get(
    "/webhook/deliveries",
    ({ agent, query }) => paged(query, (limit, offset) => read(deliveriesOf(agent.id, limit, offset))),
    { agent: true, query: PageQuery, ...answers(docs("Webhooks", "Every delivery attempt to the caller's webhook, newest first", "agent"), { 200: WebhookDeliveryPage }) },
  );
