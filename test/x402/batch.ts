// An x402 `batch-settlement` seller built only from the official npm packages, on a local anvil posing as
// base-sepolia, so agentbank's batch-settlement buyer is tested against the real implementations.
//
//   chain        anvil --chain-id 84532. TestUSDC's runtime code at base-sepolia's USDC address (named
//                "USDC", version "2"), Multicall3 at its usual address (@x402/evm's facilitator reads
//                through tryAggregate), and the batch-settlement escrow and its ERC-3009 deposit collector
//                at the addresses @x402/evm uses: our stand-ins (test/chain/BatchSettlement.sol says why).
//                startBatchSeller({ on }) places only the escrow and the collector on the anvil of
//                startOfficialX402 (official.ts), which has the rest already, and leaves it running.
//   facilitator  `x402Facilitator` of @x402/core/facilitator with @x402/evm's batch-settlement facilitator
//                scheme; test actor 1 pays the gas (test actor 3 on a shared anvil, where official.ts's
//                facilitator is actor 1), a fresh key is the receiverAuthorizer (advertised in
//                /supported, so the server and the buyer put it in the channel config).
//   server       express + `paymentMiddleware` of @x402/express, an `x402ResourceServer` with
//                `HTTPFacilitatorClient` to the facilitator and @x402/evm's batch-settlement server scheme.
//                Routes (0.01 USDC each, payTo a random merchant address):
//                  GET /paid   200 JSON: the voucher is accepted and charged.
//                  GET /fail   the handler answers 500: @x402/express settles nothing, no charge.
//                  GET /to     like /paid, but payTo is whatever setOtherPayTo() last set (an agent's
//                              deposit address, to see the buyer refuse it).
//                refuseRefunds(true) makes it refuse cooperative refunds (a seller that never gives one).
//   manager      `BatchSettlementChannelManager` of the server scheme: claimAndSettle() puts the vouchers
//                charged so far on chain and pays the merchant.
import { type Abi, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "@x402/evm";
import { BatchSettlementEvmScheme as BatchFacilitatorScheme } from "@x402/evm/batch-settlement/facilitator";
import { BatchSettlementChannelManager, BatchSettlementEvmScheme as BatchServerScheme } from "@x402/evm/batch-settlement/server";
import contracts from "../chain/contracts.json";
import { startAnvil, testActor, type Anvil } from "../chain/anvil";
import { BASE_SEPOLIA_CHAIN_ID, facilitatorWalletOn, MULTICALL3, NETWORK_V2, officialFacilitatorSigner, USDC } from "./official";

const escrowAbi = contracts.StandInBatchSettlement.abi as Abi;
const usdcAbi = contracts.TestUSDC.abi as Abi;

export async function startBatchSeller(options: { on?: Anvil } = {}) {
  const anvil = options.on ?? (await startAnvil({ chainId: BASE_SEPOLIA_CHAIN_ID }));
  const rpc = (method: string, params: unknown[]) => anvil.client.request({ method: method as never, params: params as never });
  // Deployed anywhere, then their runtime code placed where the official packages look (storage empty).
  const place = async (target: Address, name: keyof typeof contracts) => {
    const deployed = await anvil.deploy(name);
    await rpc("anvil_setCode", [target, await anvil.client.getCode({ address: deployed })]);
  };
  if (!options.on) {
    await place(USDC, "TestUSDC");
    await anvil.send("initialize", ["USDC"], USDC);
    await place(MULTICALL3, "Multicall3");
  }
  await place(BATCH_SETTLEMENT_ADDRESS, "StandInBatchSettlement");
  await place(ERC3009_DEPOSIT_COLLECTOR_ADDRESS, "StandInERC3009DepositCollector");

  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const facilitatorAccount = testActor(options.on ? 3 : 1);
  const receiverAuthorizer = privateKeyToAccount(generatePrivateKey());
  const wallet = facilitatorWalletOn(anvil, facilitatorAccount);
  const signer = officialFacilitatorSigner(wallet, facilitatorAccount.address);
  const facilitatorCore = new x402Facilitator().register(NETWORK_V2, new BatchFacilitatorScheme(signer, receiverAuthorizer as never));
  // One account sends every transaction: one at a time.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
  // refuseRefunds(true): the facilitator refuses cooperative refunds, as a seller that never gives one.
  let refusing = false;
  const facilitator = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const { pathname } = new URL(request.url);
      try {
        if (request.method === "GET" && pathname === "/supported") return Response.json(facilitatorCore.getSupported());
        if (request.method === "POST" && (pathname === "/verify" || pathname === "/settle")) {
          const body = (await request.json()) as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
          if (refusing && (body.paymentPayload.payload as { type?: string }).type === "refund") {
            return Response.json(pathname === "/verify" ? { isValid: false, invalidReason: "refund_refused" } : { success: false, errorReason: "refund_refused", transaction: "", network: NETWORK_V2 });
          }
          const result =
            pathname === "/verify"
              ? await facilitatorCore.verify(body.paymentPayload, body.paymentRequirements)
              : await serial(() => facilitatorCore.settle(body.paymentPayload, body.paymentRequirements));
          return Response.json(result);
        }
        return Response.json({ error: "not found" }, { status: 404 });
      } catch (error) {
        return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
      }
    },
  });
  const facilitatorClient = new HTTPFacilitatorClient({ url: `http://127.0.0.1:${facilitator.port}` });

  const serverScheme = new BatchServerScheme(payTo);
  const resourceServer = new x402ResourceServer(facilitatorClient).register(NETWORK_V2, serverScheme);
  let otherPayTo: Address = payTo;
  const route = (description: string, to: Address | (() => Address) = payTo) => ({
    accepts: { scheme: "batch-settlement", price: "$0.01", network: NETWORK_V2, payTo: to, maxTimeoutSeconds: 60 },
    description,
    mimeType: "application/json",
  });
  const app = express();
  app.use(paymentMiddleware({ "GET /paid": route("paid content"), "GET /fail": route("the handler fails"), "GET /to": route("paid elsewhere", () => otherPayTo) }, resourceServer));
  let served = 0;
  app.get("/paid", (_req, res) => {
    served += 1;
    res.json({ data: "batch paid content", served });
  });
  app.get("/to", (_req, res) => {
    res.json({ data: "paid elsewhere" });
  });
  app.get("/fail", (_req, res) => {
    res.status(500).json({ error: "the handler failed" });
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const started = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(started)));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const manager = new BatchSettlementChannelManager({ scheme: serverScheme, facilitator: facilitatorClient, receiver: payTo, token: USDC, network: NETWORK_V2 });

  const balanceOf = async (address: Address) => (await anvil.client.readContract({ address: USDC, abi: usdcAbi, functionName: "balanceOf", args: [address] })) as bigint;
  /** The escrow's [balance, totalClaimed] of a channel. */
  const channel = async (channelId: Hex) =>
    (await anvil.client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: escrowAbi, functionName: "channels", args: [channelId] })) as [bigint, bigint];

  return {
    anvil,
    chainId: BASE_SEPOLIA_CHAIN_ID,
    usdc: USDC,
    payTo,
    receiverAuthorizer: receiverAuthorizer.address,
    url,
    mint: (to: Address, units: bigint) => anvil.send("mint", [to, units], USDC),
    balanceOf,
    channel,
    refuseRefunds: (on: boolean) => {
      refusing = on;
    },
    /** Moves the chain's clock on (and mines a block at the new time). */
    increaseTime: async (seconds: number) => {
      await rpc("evm_increaseTime", [seconds]);
      await anvil.mine(1);
    },
    setOtherPayTo: (address: Address) => {
      otherPayTo = address;
    },
    /** The merchant's side: every voucher charged so far claimed on chain, then paid out. */
    claimAndSettle: () => manager.claimAndSettle(),
    /** The merchant's side: refunds these channels (all it knows when none are named) on its own. */
    refund: (channelIds?: string[]) => manager.refund(channelIds),
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
      facilitator.stop(true);
      if (!options.on) anvil.stop();
    },
  };
}

export type BatchSeller = Awaited<ReturnType<typeof startBatchSeller>>;

/**
 * A raw batch-settlement offer, no escrow or package behind it: GET / answers 402 with one
 * batch-settlement requirement (0.01 USDC of `usdc` on eip155:84532); a request with a payment header
 * gets 200 and no settlement. Every payment to it leaves a channel whose deposit never lands.
 */
export function startBatch402(usdc: Address) {
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const receiverAuthorizer = privateKeyToAccount(generatePrivateKey()).address;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      if (request.headers.get("payment-signature")) return Response.json({ data: "unpaid content" });
      const required = {
        x402Version: 2,
        error: "Payment required",
        resource: { url: request.url, description: "raw batch offer", mimeType: "application/json" },
        accepts: [{ scheme: "batch-settlement", network: NETWORK_V2, amount: "10000", asset: usdc, payTo, maxTimeoutSeconds: 60, extra: { receiverAuthorizer, name: "USDC", version: "2" } }],
      };
      return Response.json({}, { status: 402, headers: { "PAYMENT-REQUIRED": Buffer.from(JSON.stringify(required)).toString("base64") } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}
