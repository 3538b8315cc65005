// A seller agent's own paid endpoints, built as docs/x402.md shows them: express + @x402/express (the
// official packages only), pointed at agentbank's /x402/facilitator with the seller's key. Every payment
// header the server receives is kept in `received`, in order (what a seller could do with it besides
// settling: the custody tests submit it on chain themselves).
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { Address } from "viem";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { TEST_MNEMONIC } from "../chain/anvil";
import { NETWORK_V2 } from "./official";

/** One paid GET route: its price ("$0.01"), who is paid, and the JSON it answers once paid. */
export type SellerRoute = { payTo: Address; price: string; answer: unknown; description: string; extensions?: Record<string, unknown> };

export async function startSeller(bankUrl: string, sellerKey: string, routes: Record<string, SellerRoute>) {
  const auth = { authorization: `Bearer ${sellerKey}` };
  const facilitator = new HTTPFacilitatorClient({ url: new URL("/x402/facilitator", bankUrl).toString(), createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
  const resourceServer = new x402ResourceServer(facilitator).register(NETWORK_V2, new ExactEvmScheme()).registerExtension(bazaarResourceServerExtension);
  const received: string[] = [];
  const app = express();
  app.use((req, _res, next) => {
    const header = req.headers["payment-signature"];
    if (typeof header === "string") received.push(header);
    next();
  });
  const paid = Object.fromEntries(
    Object.entries(routes).map(([path, route]) => [
      `GET ${path}`,
      {
        accepts: { scheme: "exact", price: route.price, network: NETWORK_V2, payTo: route.payTo, maxTimeoutSeconds: 60 },
        description: route.description,
        mimeType: "application/json",
        ...(route.extensions ? { extensions: route.extensions } : {}),
      },
    ]),
  );
  app.use(paymentMiddleware(paid, resourceServer));
  for (const [path, route] of Object.entries(routes)) app.get(path, (_req, res) => void res.json(route.answer));
  const server = await new Promise<Server>((resolve) => {
    const started = app.listen(0, "127.0.0.1", () => resolve(started));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.close();
      server.closeAllConnections?.();
    },
  };
}

export type Seller = Awaited<ReturnType<typeof startSeller>>;

/**
 * The environment of an agentbank whose facilitator settles on `x`'s chain (anvil posing as
 * base-sepolia). One new (UNRATED) seller settles several sales on chain a day: its tenth of
 * X402_FACILITATOR_GAS_PER_DAY is 3,000,000 gas (the tier budgets themselves: test/x402-facilitator-farming.test.ts).
 */
export const facilitatorChainEnv = (x: { anvil: { rpcUrl: string }; chainId: number; usdc: string }) => ({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  CHAIN_RPC_URL: x.anvil.rpcUrl,
  CHAIN_ID: String(x.chainId),
  USDC_ADDRESS: x.usdc,
  MASTER_MNEMONIC: TEST_MNEMONIC,
  CONFIRMATIONS: "1",
  X402_FACILITATOR_GAS_PER_DAY: "30000000",
});
