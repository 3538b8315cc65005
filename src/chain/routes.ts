import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS } from "../door";
import { Amount, docs, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { chainSettings } from "./client";
import { BlockchainWallet, Withdrawal, WithdrawalPage } from "./model";
import { blockchainWallet } from "./status";
import { getWithdrawal, listWithdrawals, requestWithdrawal, WITHDRAWAL_ERRORS } from "./withdrawals";

export const chainWalletRoutes = new Elysia({ prefix: "/wallets", name: "chain-wallets" })
  .use(door)
  .get("/blockchain", ({ agent }) => blockchainWallet(agent.id), {
    agent: true,
    ...answers(docs("Wallets", "The caller's deposit address on the layer-2 chain and its live USDC balance", "agent"), { 200: BlockchainWallet }),
  })
  .post("/withdraw", ({ agent, body, once }) => once(() => requestWithdrawal(agent.id, body)), {
    agent: true,
    once: 200,
    body: t.Object({
      toAddress: t.String({ minLength: 1, maxLength: 64, description: "0x address on the layer-2 network (EIP-55 checksum if mixed case)" }),
      amount: Amount({ minimum: 0.01 }),
      currency: t.Optional(t.String({ maxLength: 10, default: "USDC", description: "USDC only" })),
    }),
    // Without a chain there is nothing to withdraw to: refused before the Idempotency-Key is read.
    beforeHandle() {
      chainSettings();
    },
    ...answers(docs("Wallets", "Withdraw USDC to an address on the layer-2 chain", "agent", [...WITHDRAWAL_ERRORS, ...ONCE_ERRORS]), { 200: Withdrawal, 202: Held }),
  })
  .get("/withdrawals", ({ agent, query, read }) => paged(query, (window) => read(listWithdrawals(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("Wallets", "The caller's withdrawals, newest first", "agent"), { 200: WithdrawalPage }),
  })
  .get("/withdrawals/:id", ({ agent, params, read }) => read(getWithdrawal(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Wallets", "One of the caller's withdrawals", "agent", ["NOT_FOUND"]), { 200: Withdrawal }),
  });
