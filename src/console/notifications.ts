// The Notifications page (/console/notifications): how an owner account is told what its agents do
// (src/notices/kinds.ts): its webhook (URL and format, the signing secret shown once, a test notice),
// the channels chosen per kind of notice, and the latest notices sent to the webhook. A kind with every
// channel off says "you will not be told": nothing is opted out silently. A session signed in with one
// agent's owner key has no owner account, and is only told where notifications go.
import { NOTICE_KINDS, type NoticeKind } from "../owner-webhooks/kinds";
import { consoleUrl } from "../notices/links";
import { read, write } from "../db";
import { invalid } from "../errors";
import { ownProperty } from "../json";
import { OWNER_WEBHOOK_FORMATS } from "../owner-webhooks/formats";
import { latestNotices, queueTestNotice } from "../owner-webhooks/queue";
import { choicesOf, choose, MAX_URL_LENGTH, ownerWebhookOf, type Choice } from "../owner-webhooks/settings";
import type { Fields } from "./door";
import { csrfField, html, raw, status, table, type Writer } from "./views";
import { type AgentId } from "../ids";

/** What the last form did: its message, and a secret to show once. */
export type NotificationsOutcome = { ok: boolean; text: string; secret?: string };

const KINDS = Object.keys(NOTICE_KINDS) as NoticeKind[];
const isKind = (text: string | undefined): text is NoticeKind => text !== undefined && Object.hasOwn(NOTICE_KINDS, text);
/** Present in the channels form when it showed the webhook's column: without it, the webhook choices stay. */
const WEBHOOK_SHOWN = "webhookShown";

/** The channels form as choices: a ticked box is "on"; a field the form does not have is refused (400). */
function choicesFromForm(body: Fields): Choice[] {
  for (const [name, value] of Object.entries(body)) {
    if (name === "csrf") continue;
    const [channel = "", ...kind] = name.split(".");
    const known = name === WEBHOOK_SHOWN || ((channel === "email" || channel === "webhook") && isKind(kind.join(".")));
    if (!known || value !== "on") throw invalid(`"${name}" is not a field of this form`);
  }
  const webhookShown = ownProperty(body, WEBHOOK_SHOWN) === "on";
  return KINDS.map((kind) => ({
    kind,
    email: ownProperty(body, `email.${kind}`) === "on",
    ...(webhookShown ? { webhook: ownProperty(body, `webhook.${kind}`) === "on" } : {}),
  }));
}

/** A write op's worth of choices: the form's, stored. */
export const saveChoices = (ownerId: string, body: Fields) => {
  const choices = choicesFromForm(body);
  return write(() => choose(ownerId, choices));
};

/** Queues the test notice of `kind` for the owner's webhook about the agent shown; says what became of it. */
export async function sendTest(ownerId: string, agent: { id: AgentId; name: string }, kind: string | undefined): Promise<NotificationsOutcome> {
  if (!isKind(kind)) throw invalid("kind: choose one of the kinds listed");
  const notice = {
    kind,
    agentId: agent.id,
    subject: `Test: ${NOTICE_KINDS[kind]}`,
    text: `This is a test notice from agentbank, sent from the console's Notifications page. Nothing happened to “${agent.name}”.`,
    link: consoleUrl("/console/notifications"),
    data: { test: true },
  };
  const queued = await write(() => queueTestNotice(ownerId, notice, agent.name));
  return queued
    ? { ok: true, text: "A test notice is on its way to your webhook: it shows below once sent." }
    : { ok: false, text: `Not sent: ${(await read(ownerWebhookOf(ownerId))) ? `you turned the webhook off for “${NOTICE_KINDS[kind]}”` : "there is no webhook"}.` };
}

const box = (name: string, label: string, checked: boolean) => raw(html`<input type="checkbox" name="${name}" value="on" aria-label="${label}"${raw(checked ? " checked" : "")}>`);
const answerOf = (notice: { httpStatus: number | null; error: string | null }) => notice.error ?? (notice.httpStatus === null ? "" : String(notice.httpStatus));

/** The page of an owner account. */
export async function notificationsPage(ownerId: string, csrf: string, w: Writer, outcome?: NotificationsOutcome): Promise<string> {
  const [hook, choices, notices] = await Promise.all([read(ownerWebhookOf(ownerId)), read(choicesOf(ownerId)), read(latestNotices(ownerId, 20))]);
  const formats = Object.entries(OWNER_WEBHOOK_FORMATS).map(
    ([format, label]) => raw(html`<li><label><input type="radio" name="format" value="${format}"${raw((hook?.format ?? "standard") === format ? " checked" : "")}>${label}</label></li>`),
  );
  const message = outcome ? raw(html`<p class="${outcome.ok ? "ok" : "error"}" id="notifications-message" role="status">${outcome.text}</p>`) : "";
  const secret = outcome?.secret
    ? raw(html`<p>The signing secret (whsec_…): give it to your receiver to verify each notice. Store it now: it is not shown again.</p><p class="key" id="new-secret">${outcome.secret}</p>`)
    : "";
  const manage = hook
    ? raw(html`<div class="actions"><a class="button plain" href="/console/notifications/rotate">Rotate the signing secret…</a>
<form class="inline" method="post" action="/console/notifications/webhook/remove">${csrfField(csrf)}<button type="submit" class="plain">Remove the webhook</button></form></div>`)
    : "";
  const test = hook
    ? raw(html`<section><h2>Send a test</h2><form method="post" action="/console/notifications/test">${csrfField(csrf)}
<label for="test-kind">A test notice of the kind</label><select id="test-kind" name="kind">${KINDS.map((kind) => raw(html`<option value="${kind}">${NOTICE_KINDS[kind]}</option>`))}</select>
<button type="submit">Send a test notice</button></form></section>`)
    : "";
  const rows = KINDS.map((kind) => {
    const chosen = choices.get(kind) ?? { email: true, webhook: true };
    const told = chosen.email || (hook !== null && chosen.webhook);
    return [
      raw(html`${NOTICE_KINDS[kind]}<br><small class="muted">${kind}</small>`),
      box(`email.${kind}`, `E-mail: ${NOTICE_KINDS[kind]}`, chosen.email),
      hook ? box(`webhook.${kind}`, `Webhook: ${NOTICE_KINDS[kind]}`, chosen.webhook) : raw(html`<span class="muted">no webhook</span>`),
      told ? "" : raw(html`<strong class="error">You will not be told</strong>`),
    ];
  });
  const sent = notices.map((notice) => [w.when(notice.createdAt), notice.agentName, notice.subject, status(notice.status), notice.attempts, answerOf(notice), notice.nextAttemptAt ? w.when(notice.nextAttemptAt) : ""]);
  return html`${message}<section><h2>Your webhook</h2>
<p class="muted">Notices go to this URL besides e-mail, each signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature) whatever the format. A notice the receiver does not take (no 2xx within 5 s) is sent again, 30 s later and then less often, for 24 hours.</p>${secret}
<form method="post" action="/console/notifications/webhook">${csrfField(csrf)}
<label for="webhook-url">URL</label><input id="webhook-url" name="url" type="url" maxlength="${MAX_URL_LENGTH}" required value="${hook?.url ?? ""}" placeholder="https://hooks.slack.com/services/…">
<fieldset class="plain"><legend>Format</legend><ul class="checks">${formats}</ul></fieldset>
<p class="muted">ntfy: the topic's URL, as https://ntfy.sh/your-topic; notices are published to its server as JSON.</p>
<div class="actions"><button type="submit">Save the webhook</button></div></form>${manage}</section>${test}
<section><h2>What you are told, and how</h2><form method="post" action="/console/notifications/channels">${csrfField(csrf)}${hook ? raw(html`<input type="hidden" name="${WEBHOOK_SHOWN}" value="on">`) : ""}
${raw(table(["Notice", "E-mail", "Webhook", ""], rows))}
<div class="actions"><button type="submit">Save the choices</button></div></form></section>
<section><h2>Latest notices to the webhook</h2>${raw(table(["When", "Agent", "Subject", "Status", "Attempts", "Last answer", "Next attempt"], sent, [4]))}</section>`;
}

/**
 * The page of a session signed in with an agent's owner key: no owner account, nothing to choose — but
 * the agent can be claimed with an address (a claim link goes there), which starts the notices.
 */
export const noOwnerAccount = (csrf: string) =>
  html`<section><p>Notifications go to an owner account: a person signed in with the e-mail address they claimed their agents with, who chooses here how they are told (e-mail, a webhook) of held outflows, reminders, freezes and new keys.</p>
<p class="muted">You signed in with this agent's owner key, which belongs to the agent alone and has no owner account.</p></section>
<section><h2>Claim this agent with your address</h2><p>We mail a claim link to the address; opening it there makes it the owner account of this agent, told of what waits for you. The owner key keeps working.</p>
<form method="post" action="/console/claim-by-mail">${csrfField(csrf)}<label for="claim-email">E-mail address</label><input id="claim-email" name="email" type="email" autocomplete="email" required>
<div class="actions"><button type="submit">Mail me a claim link</button></div></form></section>`;
