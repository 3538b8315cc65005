import { Elysia, t } from "elysia";
import { read } from "../db";
import { auth } from "../auth/macros";
import { Amount, docs, IdParam, paged, PageQuery } from "../http/models";
import { mutation } from "../auth/mutation";
import { chainSettings } from "./client";
import { blockchainWallet } from "./status";
import { getWithdrawal, listWithdrawals, requestWithdrawal } from "./withdrawals";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { BlockchainWallet, Withdrawal, WithdrawalPage } from "./model";

export const chainWalletRoutes = new Elysia({ prefix: "/wallets", name: "chain-wallets" })
  .use(auth)
  .get("/blockchain", ({ agent }) => blockchainWallet(agent.id), {
    agent: true,
    ...answers(docs("Wallets", "The caller's deposit address on the layer-2 chain and its live USDC balance", "agent"), { 200: BlockchainWallet }),
  })
  .post(
    "/withdraw",
    ({ agent, body, headers, request, set }) => {
      chainSettings();
      return mutation({ agentId: agent.id, headers, request, body, set }, 200, () => requestWithdrawal(agent.id, body));
    },
    {
      agent: true,
      body: t.Object({
        toAddress: t.String({ minLength: 1, maxLength: 64, description: "0x address on the layer-2 network (EIP-55 checksum if mixed case)" }),
        amount: Amount({ minimum: 0.01 }),
        currency: t.Optional(t.String({ maxLength: 10, default: "USDC", description: "USDC only" })),
      }),
      ...answers(docs("Wallets", "Withdraw USDC to an address on the layer-2 chain", "agent", [
        "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "CHAIN_UNAVAILABLE", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Withdrawal, 202: Held }),
    },
  )
  .get(
    "/withdrawals",
    ({ agent, query }) => paged(query, (window) => read(listWithdrawals(agent.id, window))),
    { agent: true, query: PageQuery, ...answers(docs("Wallets", "The caller's withdrawals, newest first", "agent"), { 200: WithdrawalPage }) },
  )
  .get("/withdrawals/:id", ({ agent, params }) => read(getWithdrawal(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Wallets", "One of the caller's withdrawals", "agent", ["NOT_FOUND"]), { 200: Withdrawal }),
  });
