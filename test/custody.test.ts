// Custody (issue 32, finding 3): the treasury's USDC never moves on chain to one of agentbank's own
// addresses. On anvil posing as base-sepolia (test/x402/official.ts: the test USDC at its
// address, Multicall3 present), with a seller agent running its own paid endpoint through agentbank's
// facilitator (test/x402/seller.ts), the official packages only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress, parseUnits, type Address } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";
import { PRICE_UNITS, startHostile402, startOfficialX402, type OfficialX402 } from "./x402/official";
import { startSeller, type Seller } from "./x402/seller";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** m/44'/60'/1'/0/0 of the test mnemonic: the internal settlement signer. */
const INTERNAL_SIGNER = mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 1 }).address;

let x: OfficialX402;
let server: TestServer;
let seller: Agent;
let sellerAddress: Address;
let shop: Seller;

beforeAll(async () => {
  x = await startOfficialX402();
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
  seller = await server.register();
  sellerAddress = seller.registration.wallet.address;
  shop = await startSeller(server.url, seller.apiKey, { "/report": { payTo: sellerAddress, price: "$1", answer: { report: "paid" }, description: "a report" } });
});
afterAll(async () => {
  shop?.close();
  await server?.close();
  await x?.stop();
});

/** Mines a block and lets the service's jobs (chain watcher, x402 resolver, withdrawal sender) run. */
async function confirm(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}
const usdc = (amount: string) => parseUnits(amount, 6);

/** The authorization a payment header carries. */
const authorizationIn = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8")).payload.authorization as { from: Address; to: Address };
/** What the seller can do besides settling through the facilitator: submit the authorization it was handed on chain itself. */
const submitOnChain = (header: string) => x.submitAuthorization(JSON.parse(Buffer.from(header, "base64").toString("utf8")).payload);

describe("the treasury's USDC never moves to agentbank's own addresses", () => {
  test("the finding: a seller that settles through agentbank's facilitator and also submits the authorization on chain moves none of the treasury's USDC", async () => {
    await x.mint(TREASURY, "3");
    const buyer = await server.register();
    const third = await server.register();
    // The buyer's USDC arrives on chain; the third agent's is credited by the operator.
    await x.mint(buyer.registration.wallet.address, "1");
    await confirm();
    expect(await server.balance(buyer)).toEqual({ available: 1, held: 0 });
    await server.deposit(third.id, 3);
    const treasuryBefore = await x.balanceOf(TREASURY);
    const submissions: string[] = [];
    const signers: Address[] = [];
    for (let round = 0; round < 3; round++) {
      const paid = await server.request("POST", "/x402/pay", { key: buyer.apiKey, body: { url: `${shop.url}/report`, maxAmount: 1 } });
      expect(paid.body.resource).toMatchObject({ status: 200, body: { report: "paid" } });
      expect(paid.body.payment).toMatchObject({ status: "SETTLED", internalAgentId: seller.id, transaction: null });
      signers.push(authorizationIn(shop.received.at(-1)!).from);
      submissions.push(await submitOnChain(shop.received.at(-1)!));
      const back = await server.request("POST", "/payments/send", { key: seller.apiKey, body: { toAgentId: buyer.id, amount: 1, currency: "USDC" } });
      expect(back.status).toBe(201);
      await confirm();
    }
    // The seller's authorizations move nothing on chain: not the treasury's USDC, not into the seller's address.
    expect(await x.balanceOf(TREASURY)).toBe(treasuryBefore);
    expect(await x.balanceOf(sellerAddress)).toBe(0n);
    // They were the internal settlement signer's, which holds no USDC: on chain they revert.
    expect(signers).toEqual([INTERNAL_SIGNER, INTERNAL_SIGNER, INTERNAL_SIGNER]);
    expect(submissions).toEqual(["reverted", "reverted", "reverted"]);
    expect([await server.balance(buyer), await server.balance(seller)]).toEqual([{ available: 1, held: 0 }, { available: 0, held: 0 }]);
    await expectLedgerOk(server);

    // The third agent's withdrawal of everything the treasury holds goes through.
    const target = privateKeyToAccount(generatePrivateKey()).address;
    const withdrawal = await server.request("POST", "/wallets/withdraw", { key: third.apiKey, body: { toAddress: target, amount: 3 } });
    expect(withdrawal.body.status).toBe("PENDING");
    await waitFor(async () => {
      await confirm();
      const current = await server.request("GET", `/wallets/withdrawals/${withdrawal.body.id}`, { key: third.apiKey });
      return current.body.status === "CONFIRMED" ? true : undefined;
    }, 15_000);
    expect(await x.balanceOf(target)).toBe(usdc("3"));
    await expectLedgerOk(server);
  });

  test("the treasury's own addresses are never a payee or a withdrawal's destination: 400, nothing signed or debited", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 5);
    for (const payTo of [TREASURY, INTERNAL_SIGNER]) {
      const resource = startHostile402({ payTo });
      try {
        const refused = await server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${resource.url}/v2/amount/${PRICE_UNITS}`, maxAmount: 1 } });
        expect([refused.status, refused.body.message]).toEqual([400, expect.stringContaining("payTo is the service's own")]);
        expect(resource.payments).toEqual([]);
      } finally {
        resource.stop();
      }
      const withdrawal = await server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: payTo, amount: 1 } });
      expect([withdrawal.status, withdrawal.body.message]).toEqual([400, expect.stringContaining("toAddress is the service's own")]);
    }
    expect(await server.balance(agent)).toEqual({ available: 5, held: 0 });
    await expectLedgerOk(server);
  });
});
