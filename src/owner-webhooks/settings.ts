// An owner account's webhook (one per owner: its URL, its format and its signing secret) and the
// channels the owner chose per kind of notice. The URL passes the outbound guard when it is set (and
// again at every delivery: src/net/outbound.ts); the secret is made with the first URL, shown once
// then and after each rotation, and kept when the URL or format changes.
import { clock } from "../clock";
import { FOR_UPDATE, insertNew, run, select, together, write, type Op } from "../db";
import { invalid, invalidState } from "../errors";
import { webhookSecret } from "../ids";
import { assertCallable } from "../net/outbound";
import { isFormat, ntfyTarget } from "./formats";
import { ownerNoticePreferences, ownerWebhooks, type OwnerWebhookFormat } from "./schema";

export const MAX_URL_LENGTH = 2_000;

type OwnerWebhook = { url: string; format: OwnerWebhookFormat; secret: string };
export type Channels = { email: boolean; webhook: boolean };
/** What the owner chose for one kind; `webhook` left out keeps what was chosen before. */
export type Choice = { kind: string; email: boolean; webhook?: boolean };

/** The owner's webhook with its secret (for signing), or null. */
export function* ownerWebhookOf(ownerId: string): Op<OwnerWebhook | null> {
  const [hook] = yield* select(ownerWebhooks, "owner_id = ?", ownerId);
  return hook ? { url: hook.url, format: hook.format, secret: hook.secret } : null;
}

/**
 * Sets the owner's webhook: `url` must be an http(s) URL the outbound guard lets through (checked before
 * the write: no network call holds a lock), at most 2,000 characters; an ntfy URL must end in its topic.
 * Answers the secret when this made it (the first webhook), else null: the secret in force stays.
 */
export async function setOwnerWebhook(ownerId: string, url: string, format: string): Promise<{ secret: string | null }> {
  if (!isFormat(format)) throw invalid("format: expected standard, slack, discord or ntfy");
  if (url.length > MAX_URL_LENGTH) throw invalid(`url: at most ${MAX_URL_LENGTH} characters`);
  if (format === "ntfy" && !ntfyTarget(url)) throw invalid("url: an ntfy URL ends in its topic (letters, digits, _ and -), as https://ntfy.sh/my-alerts");
  await assertCallable(url, "url");
  const made = webhookSecret();
  return write(function* () {
    const now = clock.nowMs();
    const created = yield* insertNew(ownerWebhooks, { ownerId, url, format, secret: made, createdAt: now, updatedAt: now }, ["ownerId"]);
    if (created) return { secret: made };
    yield* run("UPDATE owner_webhooks SET url = ?, format = ?, updated_at = ? WHERE owner_id = ?", url, format, now, ownerId);
    return { secret: null };
  });
}

/** A write op: the owner's webhook is gone (its secret with it); what waits to be sent is skipped. */
export function* removeOwnerWebhook(ownerId: string): Op<void> {
  yield* run("DELETE FROM owner_webhooks WHERE owner_id = ?", ownerId);
}

/** A write op: a new signing secret, answered once; deliveries from now on are signed with it. */
export function* rotateOwnerWebhookSecret(ownerId: string): Op<string> {
  const [hook] = yield* select(ownerWebhooks, `owner_id = ? ${FOR_UPDATE}`, ownerId);
  if (!hook) throw invalidState("there is no webhook: set one first (its secret is made with it)");
  const secret = webhookSecret();
  yield* run("UPDATE owner_webhooks SET secret = ?, updated_at = ? WHERE owner_id = ?", secret, clock.nowMs(), ownerId);
  return secret;
}

const on = (flag: bigint) => flag === 1n;

/** The owner's choices by kind (kinds never chosen are not in it: e-mail and webhook on). */
export function* choicesOf(ownerId: string): Op<Map<string, { email: boolean; webhook: boolean }>> {
  const rows = yield* select(ownerNoticePreferences, "owner_id = ?", ownerId);
  return new Map(rows.map((row) => [row.kind, { email: on(row.email), webhook: on(row.webhook) }]));
}

/** A write op: stores the owner's choices (the caller names only kinds that exist). */
export function* choose(ownerId: string, choices: Choice[]): Op<void> {
  const before = yield* choicesOf(ownerId);
  const now = clock.nowMs();
  for (const { kind, email, webhook } of choices) {
    const keptWebhook = webhook ?? before.get(kind)?.webhook ?? true;
    yield* run(
      `INSERT INTO owner_notice_preferences (owner_id, kind, email, webhook, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (owner_id, kind) DO UPDATE SET email = excluded.email, webhook = excluded.webhook, updated_at = excluded.updated_at`,
      ownerId,
      kind,
      email ? 1 : 0,
      keptWebhook ? 1 : 0,
      now,
    );
  }
}

/**
 * The channels the owner chose for `kind`: e-mail unless turned off; the webhook when the owner has one
 * and did not turn it off for this kind. The step notices/ asks before telling an owner anything.
 */
export function* channelsOf(ownerId: string, kind: string): Op<Channels> {
  const [[choice], [hook]] = yield* together(select(ownerNoticePreferences, "owner_id = ? AND kind = ?", ownerId, kind), select(ownerWebhooks, "owner_id = ?", ownerId));
  return { email: choice ? on(choice.email) : true, webhook: hook !== undefined && (choice ? on(choice.webhook) : true) };
}
