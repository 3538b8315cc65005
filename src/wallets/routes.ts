import { Elysia } from "elysia";
import { balancesView } from "../agents/service";
import { read } from "../db";
import { auth } from "../http/auth";
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
    ({ agent, query }) => paged(query, (limit, offset) => read(historyOf(agent.id, limit, offset))),
    {
      agent: true,
      query: PageQuery,
      ...answers(docs("Wallets", "Movements of the caller's available balance, newest first", "agent"), { 200: HistoryPage }),
    },
  );
