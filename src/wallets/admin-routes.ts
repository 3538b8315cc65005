// POST /admin/deposits: money from outside (fiat rails, tests) credited by the operator (./deposits.ts).
import { t } from "elysia";
import { AgentIdRef, Amount, Currency, docs } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { creditDeposit } from "./deposits";
import { Deposit } from "./model";

export const walletAdminRoutes = operatorRoutes("wallets-admin")
  .post(
    "/deposits",
    async ({ body, write, status }) => status(201, await write(() => creditDeposit(body))),
    {
      body: t.Object({ agentId: AgentIdRef(), amount: Amount(), currency: Currency, reference: t.Optional(t.String({ maxLength: 200 })) }),
      ...answers(docs("Operator", "Credit an agent with money from outside (fiat rails, tests)", "admin", ["NOT_FOUND"]), { 201: Deposit }),
    },
  );
