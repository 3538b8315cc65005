// The mails that carry a single-use link (src/accounts): the claim of a new agent, sent to its
// registration's ownerEmail, and a sign-in to the console. Links point at PUBLIC_URL (never at the Host
// a request came with: a forged Host would send the token elsewhere) and only open a page whose button
// does the deed, so a mail scanner that follows them changes nothing.
import { issueLink, LINK_LIFETIME_MS } from "../accounts/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import type { Op } from "../db";
import { type AgentId, uuid } from "../ids";
import { queueMail } from "../mail/queue";

/** Where a path of the console is, for a link in a mail. */
export const consoleUrl = (path: string) => `${config.publicUrl}${path}`;

const when = (ms: number) => `${iso(ms).slice(0, 16).replace("T", " ")} UTC`;

/**
 * A write op, in the registration's (or a notice's, `event` then its own): the claim link of an agent,
 * mailed to the owner it names. Returns where it went and until when.
 */
export function* mailClaimLink(agent: { id: AgentId; name: string; ownerName: string; ownerEmail: string }, event = `agent.claim:${agent.id}`): Op<{ sentTo: string; expiresAt: string }> {
  const token = yield* issueLink("claim", agent.ownerEmail, agent.id);
  const expiresAt = clock.nowMs() + LINK_LIFETIME_MS.claim;
  yield* queueMail({
    event,
    to: agent.ownerEmail,
    subject: `Claim your agent “${agent.name}”`,
    text: [
      `Hello ${agent.ownerName},`,
      "",
      `An agent named “${agent.name}” was registered at ${config.publicUrl} with this address as its owner's.`,
      "To become its owner — set what it may spend, approve what goes above that, stop it if you need to — open this link and confirm:",
      "",
      consoleUrl(`/console/claim/${token}`),
      "",
      `The link works once, until ${when(expiresAt)}. Until the agent is claimed, what it spends above the service's default limits waits for you.`,
      "If you did not expect this message, ignore it: nothing happens without your confirmation.",
    ].join("\n"),
  });
  return { sentTo: agent.ownerEmail, expiresAt: iso(expiresAt) };
}

/** A write op: a sign-in link to the console for the owner at `email`, leading to `next` (a /console/… path) once used. */
export function* mailSignInLink(email: string, next: string | null): Op<void> {
  const token = yield* issueLink("sign_in", email, null, next);
  yield* queueMail({
    event: `owner.sign_in:${uuid()}`,
    to: email,
    subject: "Your agentbank sign-in link",
    text: [
      "Open this link to sign in to the agentbank console:",
      "",
      consoleUrl(`/console/login/link/${token}`),
      "",
      `It works once, for ${LINK_LIFETIME_MS.sign_in / 60_000} minutes. If you did not ask for it, ignore this message.`,
    ].join("\n"),
  });
}
