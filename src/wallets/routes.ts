import { Elysia, t } from "elysia";
import { door } from "../door";
import { docs, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { historyOf } from "../ledger/history";
import { walletView } from "./balances";
import { HistoryPage, WalletBalance } from "./model";

export const walletRoutes = new Elysia({ prefix: "/wallets", name: "wallets" })
  .use(door)
  .get("/balance", ({ agent, read }) => read(walletView(agent.id)), {
    agent: true,
    ...answers(docs("Wallets", "Available and held balance in every currency", "agent"), { 200: WalletBalance }),
  })
  .get("/history", ({ agent, query, read }) => paged(query, (window) => read(historyOf(agent.id, window))), {
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
  });
