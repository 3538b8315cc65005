// An agent's webhook URL and signing secret: two columns of its row in agents, read by the settings
// routes and by the dispatcher (the URL and secret of the moment of delivery).
import type { agents } from "../agents/schema";
import { FOR_UPDATE, get, type Query, type Row } from "../db";

export type WebhookSettings = Pick<Row<typeof agents>, "webhookUrl" | "webhookSecret">;

/** The agent's webhook settings, or null if there is no such agent. `lock`: in a write op that changes them. */
export function webhookSettings(agentId: string, lock = false): Query<WebhookSettings | null> {
  return get<WebhookSettings>(`SELECT webhook_url AS webhookUrl, webhook_secret AS webhookSecret FROM agents WHERE id = ? ${lock ? FOR_UPDATE : ""}`, agentId);
}
