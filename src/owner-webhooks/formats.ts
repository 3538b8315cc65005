// What each format of the owner's webhook sends, and where. Every format is signed the same way
// (src/webhooks/signed.ts); only the JSON differs. `standard` is Standard Webhooks' payload; the others
// are the plain JSON the incoming webhooks of Slack (`text`), Discord (`content`) and ntfy (JSON
// publishing, POSTed to the server's root with the topic in the body) accept, so an owner can point the
// webhook at any of them without a relay.
import { iso } from "../clock";
import type { Row } from "../db";
import type { OwnerWebhookFormat } from "./schema";
import { ownerWebhookNotices } from "./schema";
import { readJson } from "../json";

export const OWNER_WEBHOOK_FORMATS: Record<OwnerWebhookFormat, string> = {
  standard: "Standard Webhooks JSON (type, timestamp, data)",
  slack: "Slack incoming webhook",
  discord: "Discord webhook",
  ntfy: "ntfy topic",
};
export const isFormat = (text: string): text is OwnerWebhookFormat => Object.hasOwn(OWNER_WEBHOOK_FORMATS, text);

/** Discord refuses content over 2,000 characters; ntfy turns a message over 4,096 bytes into an attachment (1,000 characters are at most 4,000 bytes). */
const MOST_CHARACTERS = { slack: 4_000, discord: 2_000, ntfy: 1_000 } as const;
/** ntfy's topic names: letters, digits, _ and -, at most 64. */
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/**
 * An ntfy URL is the topic's (https://ntfy.sh/alerts, as ntfy shows it); JSON is published to the root
 * before it (https://ntfy.sh/, or a self-hosted server's path), keeping the query (ntfy's `auth`).
 * Null when the path does not end in a topic name.
 */
export function ntfyTarget(url: string): { root: string; topic: string } | null {
  const parsed = URL.parse(url);
  const topic = parsed?.pathname.split("/").at(-1) ?? "";
  if (!parsed || !NTFY_TOPIC.test(topic)) return null;
  parsed.pathname = parsed.pathname.slice(0, -topic.length);
  parsed.hash = "";
  return { root: parsed.toString(), topic };
}

/** At most `most` characters (whole code points), an ellipsis ending what was cut. */
function cut(text: string, most: number): string {
  const points = [...text];
  return points.length <= most ? text : `${points.slice(0, most - 1).join("")}…`;
}

/** Slack reads &, < and > as markup (<!channel> would ping everyone): written as entities, as Slack asks. */
const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

type Notice = Row<typeof ownerWebhookNotices>;
const lines = (notice: Notice, subject: string) => [subject, notice.message, ...(notice.link ? [notice.link] : [])];

/** The URL to POST to and the JSON body for `notice` in `format`. */
export function render(format: OwnerWebhookFormat, url: string, notice: Notice): { url: string; body: string } {
  switch (format) {
    case "standard": {
      const data = { agentId: notice.agentId, agentName: notice.agentName, subject: notice.subject, text: notice.message, link: notice.link, data: readJson(notice.data) };
      return { url, body: JSON.stringify({ type: notice.kind, timestamp: iso(notice.createdAt), data }) };
    }
    case "slack":
      return { url, body: JSON.stringify({ text: slackEscape(cut(lines(notice, `*${notice.subject}*`).join("\n"), MOST_CHARACTERS.slack)) }) };
    case "discord":
      // No mention in a notice may ping anyone (an agent's name could be "@everyone").
      return { url, body: JSON.stringify({ content: cut(lines(notice, `**${notice.subject}**`).join("\n"), MOST_CHARACTERS.discord), allowed_mentions: { parse: [] } }) };
    case "ntfy": {
      const { root, topic } = ntfyTarget(url)!;
      const published = { topic, title: notice.subject, message: cut(notice.message, MOST_CHARACTERS.ntfy), ...(notice.link ? { click: notice.link } : {}) };
      return { url: root, body: JSON.stringify(published) };
    }
  }
}
