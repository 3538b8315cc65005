// Telling an agent's owner (issue 33): `tellOwner(notice)` is a step of the write op that causes the
// notice (an outflow held, a freeze, a new key), so the notice exists if and only if its cause
// committed, and it leaves after the commit, once per notice (src/mail). Who is told:
// - the owner account that claimed the agent, on the channels it chose for the notice's kind (the
//   console's Notifications page): e-mail to its verified address, its webhook (src/owner-webhooks);
// - an agent nobody claimed yet, whose registration mailed a claim link: that address, with a fresh
//   claim link (the owner is reached where the claim went; deciding needs the claim first);
// - an agent owned only by its owner key (OWNER_KEY_AT_REGISTRATION) and never claimed: nobody by
//   mail (no address was ever proved); its console shows what waits, and claiming it with an address
//   starts the notices.
import { ownerOf } from "../accounts/service";
import { findAgent } from "../agents/service";
import { iso } from "../clock";
import { type AgentId, uuid } from "../ids";
import { select, type Op } from "../db";
import { queueMail } from "../mail/queue";
import { ownerLinks } from "../accounts/schema";
import { consoleUrl, mailClaimLink } from "./links";
import type { Notice } from "../owner-webhooks/kinds";
import { queueOwnerWebhook } from "../owner-webhooks/queue";
import { channelsOf } from "../owner-webhooks/settings";

/** The address a claim link of the agent last went to, while nobody has claimed it; null if none ever did. */
function* claimAddressOf(agentId: AgentId): Op<string | null> {
  const [link] = yield* select(ownerLinks, "agent_id = ? AND purpose = 'claim' ORDER BY created_at DESC LIMIT 1", agentId);
  return link?.email ?? null;
}

const footer = (link: string | null) => (link ? ["", `Open it in the console: ${consoleUrl(link)}`, "(The link only shows it: nothing is decided until you press a button there.)"] : []);

/** A write op step: the notice goes to the agent's owner (see above); nothing when nobody can be reached. */
export function* tellOwner(notice: Notice): Op<void> {
  const owner = yield* ownerOf(notice.agentId);
  const agent = (yield* findAgent(notice.agentId))!;
  const text = [`${agent.name}: ${notice.text}`, ...footer(notice.link)].join("\n");
  if (owner) {
    if ((yield* channelsOf(owner.id, notice.kind)).email) yield* queueMail({ event: notice.event, to: owner.email, subject: notice.subject, text });
    yield* queueOwnerWebhook(owner.id, { ...notice, link: notice.link && consoleUrl(notice.link) }, agent.name);
    return;
  }
  const address = yield* claimAddressOf(notice.agentId);
  if (address === null) return;
  // Nobody has claimed it yet: the notice says so, and carries a new claim link (the old one may be gone).
  yield* mailClaimLink({ id: agent.id, name: agent.name, ownerName: agent.ownerName, ownerEmail: address }, `${notice.event}:claim`);
  yield* queueMail({ event: notice.event, to: address, subject: notice.subject, text: `${text}\n\nTo decide, first claim the agent with the link in the message that came with this one.` });
}

/**
 * A write op step: the owner hears that a key was made for its agent — its name, what it may do, by
 * whom. `id`: the key's (null for an MCP host's access, whose grant key is made when its code is exchanged).
 */
export function* tellOwnerOfKey(agentId: AgentId, key: { id: string | null; name: string; scopes: readonly string[]; expiresAt: bigint | number }, by: string): Op<void> {
  const until = `${iso(key.expiresAt).slice(0, 10)}`;
  yield* tellOwner({
    kind: "key.created",
    agentId,
    event: `key.created:${key.id ?? uuid()}`,
    subject: `A new key may act for your agent: “${key.name}”`,
    text: `${by} made the key “${key.name}”, which may ${key.scopes.join(", ")} until ${until}. If you did not expect it, revoke it in the console (Keys).`,
    link: "/console/security",
    data: { keyId: key.id, name: key.name, scopes: key.scopes, expiresAt: iso(key.expiresAt), by },
  });
}
