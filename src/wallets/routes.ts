import { Elysia, t } from "elysia";
import { balancesView } from "./balances";
import { read } from "../db";
import { auth } from "../auth/macros";
import { docs, paged, PageQuery } from "../http/models";
import { historyOf } from "../ledger/history";
import { answers } from "../http/responses";
import { HistoryPage, WalletBalance } from "./model";

export const walletRoutes = new Elysia({ prefix: "/wallets", name: "wallets" })
  .use(auth)
  .get("/balance", async ({ agent }) => ({ agentId: agent.id, balances: await read(balancesView(agent.id)) }), {
    agent: true,
    ...answers(docs("Wallets", "Available and held balance in every currency", "agent"), { 200: WalletBalance }),
  })
  .get(
    "/history",
    ({ agent, query }) => paged(query, (window) => read(historyOf(agent.id, window))),
    {
      agent: true,
      query: t.Object({
        ...PageQuery.properties,
        after: t.Optional(
          t.String({
            pattern: "^[1-9][0-9]{0,17}$",
            description: "the id of the last entry of the previous page (its `pagination.nextAfter`): this page starts with the entry that follows it",
          }),
        ),
      }),
      ...answers(docs("Wallets", "Movements of the caller's available balance, newest first", "agent"), { 200: HistoryPage }),
    },
  );
