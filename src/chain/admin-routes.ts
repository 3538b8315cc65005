// The operator's view of the chain: the treasury, the deposit watcher, withdrawals in flight, and
// explaining a treasury movement the service did not make.
import { t } from "elysia";
import { formatEther } from "viem";
import { read, write } from "../db";
import { notFound } from "../errors";
import { docs } from "../http/models";
import { operatorRoutes } from "../auth/operator";
import { answers } from "../http/responses";
import { toMajor } from "../money";
import { chainSettings, networkName, rpc, usdcBalanceOf } from "./client";
import { treasuryAccount } from "./keys";
import { Acknowledgement, ChainStatus } from "./model";
import { acknowledgeTransfer, watchCursor } from "./watcher";
import { withdrawalsInFlight } from "./withdrawals";

export const chainAdminRoutes = operatorRoutes("chain-admin")
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
