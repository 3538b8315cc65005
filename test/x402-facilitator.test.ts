// agentbank as the x402 v2 facilitator of its agents' own endpoints: a resource server built only from
// @x402/express + @x402/core + @x402/evm, pointed at /x402/facilitator with the seller agent's key, paid
// by the official @x402/fetch client from an outside wallet on anvil (posing as base-sepolia).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { NETWORK_V2, PRICE_UNITS, signedPayment, startOfficialX402, type OfficialX402 } from "./x402/official";

let x: OfficialX402;
let server: TestServer;
let seller: Agent;
let other: Agent;
let sellerAddress: Address;
let otherAddress: Address;
let shop: { url: string; server: Server };
const buyer = privateKeyToAccount(generatePrivateKey());
const poor = privateKeyToAccount(generatePrivateKey());
/** The payment headers the buyer's client sent, in order. */
const sent: string[] = [];

const recordingFetch = (async (input: Request | string | URL, init?: RequestInit) => {
  const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
  const header = request.headers.get("payment-signature");
  if (header) sent.push(header);
  return fetch(request);
}) as typeof fetch;
const payingFetch = (account: PrivateKeyAccount) => wrapFetchWithPayment(recordingFetch, new x402Client().register(NETWORK_V2, new ExactEvmScheme(toClientEvmSigner(account)))) as typeof fetch;

async function addressOf(agent: Agent): Promise<Address> {
  return (await server.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body.address;
}
const usdcBalance = async (agent: Agent) => (await server.request("GET", "/wallets/balance", { key: agent.apiKey })).body.balances.find((b: { currency: string }) => b.currency === "USDC")?.available ?? 0;
/** Mines a block and lets the chain watcher run. */
async function confirm(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}
const facilitator = (agent: Agent, path: "verify" | "settle", body: unknown) => server.request("POST", `/x402/facilitator/${path}`, { key: agent.apiKey, body });

const payment = (account: PrivateKeyAccount, changes: { to?: Address; value?: bigint; validBefore?: bigint } = {}) =>
  signedPayment(x, account, { to: sellerAddress, ...changes });

beforeAll(async () => {
  x = await startOfficialX402();
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
  seller = await server.register();
  other = await server.register();
  [sellerAddress, otherAddress] = await Promise.all([addressOf(seller), addressOf(other)]);
  await x.mint(buyer.address, "1");
  // The seller's server: the official packages only, with agentbank's facilitator URL and the seller's key.
  const auth = { authorization: `Bearer ${seller.apiKey}` };
  const resourceServer = new x402ResourceServer(
    new HTTPFacilitatorClient({ url: new URL("/x402/facilitator", server.url).toString(), createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) }),
  )
    .register(NETWORK_V2, new ExactEvmServerScheme())
    .registerExtension(bazaarResourceServerExtension);
  const accepts = (payTo: Address) => ({ scheme: "exact", price: "$0.01", network: NETWORK_V2, payTo, maxTimeoutSeconds: 60 });
  const app = express();
  app.use(
    paymentMiddleware(
      {
        "GET /weather": { accepts: accepts(sellerAddress), description: "Weather in Paris", mimeType: "application/json", extensions: declareDiscoveryExtension({ output: { example: { city: "Paris", temperatureC: 21 } } }) },
        "GET /elsewhere": { accepts: accepts(otherAddress), description: "paid to another agent", mimeType: "application/json" },
      },
      resourceServer,
    ),
  );
  app.get("/weather", (_req, res) => void res.json({ city: "Paris", temperatureC: 21 }));
  app.get("/elsewhere", (_req, res) => void res.json({ nope: true }));
  const listening = await new Promise<Server>((resolve) => {
    const started = app.listen(0, "127.0.0.1", () => resolve(started));
  });
  shop = { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, server: listening };
});
afterAll(async () => {
  shop?.server.close();
  shop?.server.closeAllConnections?.();
  await server?.close();
  await x?.stop();
});

describe("agentbank as the x402 facilitator of its agents' own endpoints", () => {
  test("GET /supported names exact on the configured network", async () => {
    const answer = await server.request("GET", "/x402/facilitator/supported", { key: seller.apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body.kinds).toEqual([{ x402Version: 2, scheme: "exact", network: NETWORK_V2 }]);
  });

  test("the official client pays the seller's server: the buyer's USDC falls once, the seller's balance rises once (X402_SALE, +1 score)", async () => {
    const buyerBefore = await x.balanceOf(buyer.address);
    const scoreBefore = (await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score;
    const response = await payingFetch(buyer)(`${shop.url}/weather`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ city: "Paris", temperatureC: 21 });
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    expect(await usdcBalance(seller)).toBe(0.01);
    const history = (await server.request("GET", "/wallets/history", { key: seller.apiKey })).body.data;
    expect(history.map((entry: { type: string }) => entry.type)).toEqual(["X402_SALE"]);
    expect((await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score).toBe(scoreBefore + 1);
    await expectLedgerOk(server);
  });

  test("replaying the same payment header is refused and moves nothing", async () => {
    const buyerBefore = await x.balanceOf(buyer.address);
    const replay = await fetch(`${shop.url}/weather`, { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
    expect(replay.status).toBe(402);
    await confirm();
    expect(await x.balanceOf(buyer.address)).toBe(buyerBefore);
    expect(await usdcBalance(seller)).toBe(0.01);
  });

  test("two settles of one authorization in parallel submit it once and answer the same outcome", async () => {
    const body = await payment(buyer);
    const buyerBefore = await x.balanceOf(buyer.address);
    const [a, b] = await Promise.all([facilitator(seller, "settle", body), facilitator(seller, "settle", body)]);
    expect(a.status).toBe(200);
    expect(a.body.success).toBe(true);
    expect(b.body).toEqual(a.body);
    const again = await facilitator(seller, "settle", body);
    expect(again.body).toEqual(a.body);
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    expect(await usdcBalance(seller)).toBe(0.02);
    await expectLedgerOk(server);
  });

  const refusals: [string, () => Promise<{ body: unknown; agent?: Agent }>, string][] = [
    ["an expired authorization", async () => ({ body: await payment(buyer, { validBefore: BigInt(Math.floor(Date.now() / 1000)) - 10n }) }), "invalid_exact_evm_payload_authorization_valid_before"],
    ["an under-priced authorization", async () => ({ body: await payment(buyer, { value: PRICE_UNITS / 2n }) }), "invalid_exact_evm_payload_authorization_value_mismatch"],
    ["payTo another agent's deposit address", async () => ({ body: await payment(buyer, { to: otherAddress }) }), "invalid_pay_to"],
    ["a buyer without funds", async () => ({ body: await payment(poor) }), "invalid_exact_evm_insufficient_balance"],
  ];
  for (const [name, make, reason] of refusals) {
    test(`${name}: verify and settle refuse it with the reason, nothing moves`, async () => {
      const { body } = await make();
      const buyerBefore = await x.balanceOf(buyer.address);
      const balances = [await usdcBalance(seller), await usdcBalance(other)];
      const verified = await facilitator(seller, "verify", body);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ isValid: false, invalidReason: reason });
      const settled = await facilitator(seller, "settle", body);
      expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: "" });
      await confirm();
      expect(await x.balanceOf(buyer.address)).toBe(buyerBefore);
      expect([await usdcBalance(seller), await usdcBalance(other)]).toEqual(balances);
    });
  }

  test("the seller's server cannot be paid to another agent's address through the seller's key", async () => {
    const buyerBefore = await x.balanceOf(buyer.address);
    const response = await payingFetch(buyer)(`${shop.url}/elsewhere`);
    expect(response.status).toBe(402);
    expect(await x.balanceOf(buyer.address)).toBe(buyerBefore);
  });

  test("discovery lists the resource that carried the bazaar extension", async () => {
    const list = await server.request("GET", "/x402/facilitator/discovery/resources", { key: other.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ resource: `${shop.url}/weather`, sellerAgentId: seller.id, type: "http", x402Version: 2, description: "Weather in Paris" });
    expect(list.body.data[0].extensions.bazaar).toBeDefined();
    await expectLedgerOk(server);
  });
});
