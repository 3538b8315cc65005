// The operator console's agents: found by name, id or an owner's address (the steering API's search,
// profile/search.ts), each with its balances and brakes; one agent's page with its freeze or unfreeze,
// a deposit and a correction, each asked again on a confirmation page that repeats it, then done
// through the same op as the operator API's route, with its audit entry in the same transaction.
import { Elysia, t } from "elysia";
import { field, Form, redirect } from "../console/door";
import { CURRENCIES } from "../money";
import { csrfField, html, raw, table } from "../console/views";
import { notFound } from "../errors";
import { AgentIdParam } from "../http/models";
import { setFrozen } from "../profile/freeze";
import { searchAgents } from "../profile/search";
import { correctBalance } from "../wallets/corrections";
import { creditDeposit } from "../wallets/deposits";
import { operatorConsoleDoor, type Acting } from "./door";
import { confirmation, confirmed, inWords, MAX_REASON, moneyOf, reasonOf } from "./forms";
import { OPERATOR_PATH } from "./sessions";
import { nextPage, PageField, windowOf } from "./views";

type Found = Awaited<ReturnType<typeof searchAgents> extends Generator<unknown, infer R> ? R : never>["data"][number];

const balancesOf = (agent: Found) => agent.balances.map((b) => `${b.available} ${b.currency}${b.held ? ` (+${b.held} held)` : ""}`).join(", ") || "—";
const brakesOf = (agent: Found) => (agent.frozen ? `frozen by ${agent.frozenBy.join(" and ")}` : "");
const owners = (agent: Found) => [agent.ownerEmail, agent.claimedBy].filter((email, i, all) => email && all.indexOf(email) === i).join(", ");
const agentPath = (id: string) => `${OPERATOR_PATH}/agents/${id}`;

const currencyOptions = raw(CURRENCIES.map((c) => html`<option>${c}</option>`).join(""));
const moneyFields = raw(html`<label>Amount<input name="amount" inputmode="decimal" required></label><label>Currency<select name="currency">${currencyOptions}</select></label>`);

function agentForms(agent: Found, csrf: string): string {
  const operatorFrozen = agent.frozenBy.includes("operator");
  const freeze = operatorFrozen ? "unfreeze" : "freeze";
  return html`<section><h2>${operatorFrozen ? "Unfreeze" : "Freeze"}</h2><form method="post" action="${agentPath(agent.id)}/${freeze}">${csrfField(csrf)}
<label>Reason<input name="reason" maxlength="${MAX_REASON}"></label><button type="submit" class="${operatorFrozen ? "" : "danger"}">${operatorFrozen ? "Unfreeze…" : "Freeze…"}</button></form></section>
<section><h2>Deposit</h2><p class="muted">Money from outside (fiat rails): credited to the agent.</p><form method="post" action="${agentPath(agent.id)}/deposit">${csrfField(csrf)}${moneyFields}
<label>Reason or reference<input name="reference" maxlength="200"></label><button type="submit">Deposit…</button></form></section>
<section><h2>Correction</h2><p class="muted">A compensating journal entry against the outside world (never an edit); the agent is told, with the reason.</p>
<form method="post" action="${agentPath(agent.id)}/correction">${csrfField(csrf)}${moneyFields}<label>Direction<select name="direction"><option value="credit">credit (add)</option><option value="debit">debit (take back)</option></select></label>
<label>Reason<input name="reason" maxlength="${MAX_REASON}" required></label><button type="submit">Correct…</button></form></section>`;
}

/** The operator's brake on (`frozen`) or off, once its confirmation page is answered. */
async function brake({ params, body, render, session, write }: Acting, frozen: boolean) {
  const reason = reasonOf(body, false);
  const [verb, what] = frozen ? ["Freeze", "every outflow it starts is refused until the operator unfreezes it"] : ["Unfreeze", "the operator's freeze is lifted (its owner's, if any, stays)"];
  const action = `${agentPath(params.id)}/${verb.toLowerCase()}`;
  if (!confirmed(body)) return render(`${verb} the agent?`, OPERATOR_PATH, confirmation(`${verb} agent ${params.id}: ${what}. Reason: ${reason ?? "none given"}.`, action, session.csrfToken, { reason: reason ?? "" }, verb));
  await write(() => setFrozen(params.id, "operator", frozen, reason), params.id);
  return redirect(agentPath(params.id));
}

function agentTable(data: Found[]): string {
  return table(
    ["Agent", "Id", "Owner", "Balances", "Brakes"],
    data.map((agent) => [raw(html`<a href="${agentPath(agent.id)}">${agent.name}</a>`), agent.id, owners(agent), balancesOf(agent), brakesOf(agent)]),
  );
}

export const agentRoutes = new Elysia({ name: "operator-console-agents" })
  .use(operatorConsoleDoor)
  .get(
    "",
    async ({ render, read, query }) => {
      const found = await read(searchAgents(query.q || undefined, windowOf(query.page)));
      const more = raw(nextPage(OPERATOR_PATH, query, found.data.length));
      return render(
        "Agents",
        OPERATOR_PATH,
        html`<section><form method="get" action="${OPERATOR_PATH}" class="export"><label>Name, id or owner's e-mail<input name="q" value="${query.q ?? ""}" maxlength="254"></label><button type="submit">Search</button></form></section>
<section>${raw(agentTable(found.data))}${more}</section>`,
      );
    },
    { operatorPage: true, query: t.Object({ q: t.Optional(t.String({ maxLength: 254 })), page: PageField }), detail: { hide: true } },
  )
  .get(
    "/agents/:id",
    async ({ render, read, params, session }) => {
      const [agent] = (await read(searchAgents(params.id, { limit: 1, offset: 0 }))).data.filter((found) => found.id === params.id);
      if (!agent) throw notFound("agent");
      return render(agent.name, OPERATOR_PATH, html`<section>${raw(agentTable([agent]))}</section>${raw(agentForms(agent, session.csrfToken))}`);
    },
    { operatorPage: true, params: AgentIdParam, detail: { hide: true } },
  )
  .post("/agents/:id/freeze", (context) => brake(context, true), { operatorAction: "agent.freeze", params: AgentIdParam, body: Form, detail: { hide: true } })
  .post("/agents/:id/unfreeze", (context) => brake(context, false), { operatorAction: "agent.unfreeze", params: AgentIdParam, body: Form, detail: { hide: true } })
  .post(
    "/agents/:id/deposit",
    async ({ params, body, render, session, write }) => {
      const { amount, currency } = moneyOf(body);
      const reference = (field(body, "reference") ?? "").trim().slice(0, 200) || undefined;
      const fields = { amount: String(amount), currency, reference: reference ?? "" };
      if (!confirmed(body)) return render("Deposit?", OPERATOR_PATH, confirmation(`Credit agent ${params.id} with ${inWords(amount, currency)} from outside. Reference: ${reference ?? "none"}.`, `${agentPath(params.id)}/deposit`, session.csrfToken, fields, `Deposit ${amount} ${currency}`));
      await write(() => creditDeposit({ agentId: params.id, amount, currency, reference }), params.id);
      return redirect(agentPath(params.id));
    },
    { operatorAction: "deposit.credit", params: AgentIdParam, body: Form, detail: { hide: true } },
  )
  .post(
    "/agents/:id/correction",
    async ({ params, body, render, session, once }) => {
      const { amount, currency } = moneyOf(body);
      const direction = field(body, "direction") === "debit" ? "debit" : "credit";
      const reason = reasonOf(body, true)!;
      const fields = { amount: String(amount), currency, direction, reason };
      const what = direction === "credit" ? `add ${inWords(amount, currency)} to` : `take ${inWords(amount, currency)} back from`;
      if (!confirmed(body)) return render("Correct the balance?", OPERATOR_PATH, confirmation(`A compensating entry: ${what} agent ${params.id}'s available balance. Reason: ${reason}.`, `${agentPath(params.id)}/correction`, session.csrfToken, fields, `Correct: ${direction} ${amount} ${currency}`));
      await once(params.id, field(body, "once"), () => correctBalance(params.id, { amount, currency, direction, reason }));
      return redirect(agentPath(params.id));
    },
    { operatorAction: "agent.correct", params: AgentIdParam, body: Form, detail: { hide: true } },
  );
