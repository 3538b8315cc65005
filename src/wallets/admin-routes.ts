// POST /admin/deposits: money from outside (fiat rails, tests) credited by the operator.
import { t } from "elysia";
import { getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { write } from "../db";
import { Amount, Currency, docs, Uuid } from "../http/models";
import { operatorRoutes } from "../auth/operator";
import { answers } from "../http/responses";
import { uuid } from "../ids";
import { deposit } from "../ledger/transfers";
import { toMajor, toMinor } from "../money";
import { notifyFinancial } from "../webhooks/outbox";
import { Deposit } from "./model";

export const walletAdminRoutes = operatorRoutes("wallets-admin")
  .post(
    "/deposits",
    async ({ body, set }) => {
      const amount = toMinor(body.amount, body.currency);
      const id = uuid();
      await write(function* () {
        yield* getAgent(body.agentId);
        yield* deposit(body.agentId, amount, body.currency, { type: "deposit", id });
        yield* notifyFinancial(
          body.agentId,
          "deposit.credited",
          { depositId: id, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null },
          `Deposit credited: ${toMajor(amount, body.currency)} ${body.currency}`,
        );
      });
      set.status = 201;
      return { id, agentId: body.agentId, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null, createdAt: iso(clock.nowMs()) };
    },
    {
      body: t.Object({ agentId: Uuid, amount: Amount(), currency: Currency, reference: t.Optional(t.String({ maxLength: 200 })) }),
      ...answers(docs("Operator", "Credit an agent with money from outside (fiat rails, tests)", "admin", ["NOT_FOUND"]), { 201: Deposit }),
    },
  );
