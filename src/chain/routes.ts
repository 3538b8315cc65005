import { Elysia, t } from "elysia";
import { formatEther } from "viem";
import { assertAdmin } from "../auth/keys";
import { config } from "../config";
import { read, write } from "../db";
import { notFound } from "../errors";
import { auth } from "../http/auth";
import { Amount, docs, IdParam, paged, PageQuery } from "../http/models";
import { mutation } from "../http/mutation";
import { toMajor } from "../money";
import { depositAddressOf } from "./addresses";
import { chainSettings, networkName, rpc, usdcBalanceOf, verifyChain } from "./client";
import { acknowledgeTransfer, watchCursor } from "./watcher";
import { treasuryAccount } from "./keys";
import { getWithdrawal, listWithdrawals, requestWithdrawal, withdrawalsInFlight } from "./withdrawals";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Acknowledgement, BlockchainWallet, ChainStatus, Withdrawal, WithdrawalPage } from "./model";


async function blockchainView(agentId: string) {
  // Every agent gets its deposit address at registration (in the same write op).
  const address = (await read(depositAddressOf(agentId)))!;
  if (!config.chain.configured) {
    return { address, network: null, chainId: null, usdcContract: null, onchainBalance: null, status: "not_configured" };
  }
  const { chainId, usdcAddress } = config.chain;
  const base = { address, network: networkName(chainId), chainId, usdcContract: usdcAddress };
  try {
    await verifyChain();
    const balance = await usdcBalanceOf(address as `0x${string}`);
    return { ...base, onchainBalance: toMajor(balance, "USDC"), status: "ok" };
  } catch {
    return { ...base, onchainBalance: null, status: "unreachable" };
  }
}

export const chainWalletRoutes = new Elysia({ prefix: "/wallets", name: "chain-wallets" })
  .use(auth)
  .get("/blockchain", ({ agent }) => blockchainView(agent.id), {
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
        "INSUFFICIENT_BALANCE", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "CHAIN_UNAVAILABLE", "IDEMPOTENCY_KEY_REUSED",
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

export const chainAdminRoutes = new Elysia({ prefix: "/admin", name: "chain-admin" })
  .onTransform({ as: "local" }, ({ headers }) => assertAdmin(headers.authorization))
  .get(
    "/chain",
    async () => {
      const treasury = treasuryAccount().address;
      const { chainId, usdcAddress, confirmations } = chainSettings();
      const [usdc, gas, latest] = await rpc((client) =>
        Promise.all([usdcBalanceOf(treasury), client.getBalance({ address: treasury }), client.getBlockNumber()]),
      );
      const cursor = (await read(watchCursor()))?.block ?? null;
      return {
        network: networkName(chainId),
        chainId,
        usdcContract: usdcAddress,
        treasury: { address: treasury, usdc: toMajor(usdc, "USDC"), gas: formatEther(gas) },
        chainWatcher: { cursorBlock: cursor === null ? null : Number(cursor), latestBlock: Number(latest), lagBlocks: cursor === null ? null : Number(latest - cursor), confirmations },
        withdrawalsInFlight: await read(withdrawalsInFlight()),
      };
    },
    { ...answers(docs("Operator", "Treasury balances, deposit watcher position and withdrawals in flight", "admin", ["CHAIN_UNAVAILABLE"]), { 200: ChainStatus }) },
  )
  .post(
    "/chain/acknowledge",
    async ({ body }) => {
      chainSettings();
      const found = await write(() => acknowledgeTransfer(body.txHash, body.logIndex, body.reason));
      if (!found) throw notFound("treasury transfer (the chain watcher records it once it has its confirmations)");
      return { txHash: body.txHash.toLowerCase(), logIndex: body.logIndex, acknowledged: body.reason };
    },
    {
      body: t.Object({
        txHash: t.String({ pattern: "^0x[0-9a-fA-F]{64}$" }),
        logIndex: t.Integer({ minimum: 0, maximum: 1_000_000 }),
        reason: t.String({ minLength: 1, maxLength: 500, description: "what the movement was, e.g. \"moved to cold storage\"" }),
      }),
      ...answers(docs("Operator", "Explain a treasury transfer the service did not make (funding moved by hand), so the chain reconciliation counts it", "admin", ["NOT_FOUND", "CHAIN_UNAVAILABLE"]), { 200: Acknowledgement }),
    },
  );
