// POST /admin/deposits: money from outside (fiat rails, tests) credited by the operator (./deposits.ts);
// POST /admin/agents/{id}/correction: the operator's compensating entry (./corrections.ts).
import { t } from "elysia";
import { AgentIdParam, AgentIdRef, Amount, Currency, docs } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { ONCE_ERRORS } from "../door";
import { answers } from "../http/responses";
import { CORRECTION_ERRORS, correctBalance } from "./corrections";
import { creditDeposit } from "./deposits";
import { Correction, Deposit } from "./model";

export const walletAdminRoutes = operatorRoutes("wallets-admin")
  .post(
    "/deposits",
    async ({ body, write, status }) => status(201, await write(() => creditDeposit(body), body.agentId)),
    {
      action: "deposit.credit",
      body: t.Object({ agentId: AgentIdRef(), amount: Amount(), currency: Currency, reference: t.Optional(t.String({ maxLength: 200 })) }),
      ...answers(docs("Operator", "Credit an agent with money from outside (fiat rails, tests)", "admin", ["NOT_FOUND"]), { 201: Deposit }),
    },
  )
  .post("/agents/:id/correction", ({ params, body, once }) => once(params.id, () => correctBalance(params.id, body)), {
    action: "agent.correct",
    idempotent: 201,
    params: AgentIdParam,
    body: t.Object({
      amount: Amount(),
      currency: Currency,
      direction: t.Union([t.Literal("credit"), t.Literal("debit")], { description: "credit: add to the agent's available balance; debit: take from it (at most what is available)" }),
      reason: t.String({ minLength: 1, maxLength: 500, description: "why, e.g. \"deposit 0198f420 credited 500 instead of 50\": recorded in the audit log and told to the agent" }),
    }),
    ...answers(
      docs(
        "Operator",
        "Correct an agent's balance by a compensating journal entry (never an edit): a credit from, or a debit back to, the outside world, the counter-account deposits come from. The agent is told, with the reason",
        "admin",
        [...CORRECTION_ERRORS, ...ONCE_ERRORS],
      ),
      { 201: Correction },
    ),
  });
