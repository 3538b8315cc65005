// Custody (issue 32, finding 3): the treasury's USDC never moves on chain to one of agentbank's own
// addresses, and the ledger check reconciles total custody (treasury + deposit addresses) with what
// agents are owed. On anvil posing as base-sepolia (test/x402/official.ts: the test USDC at its
// address, Multicall3 present), with a seller agent running its own paid endpoint through agentbank's
// facilitator (test/x402/seller.ts), the official packages only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, getAddress, http, parseUnits, type Abi, type Address } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import contracts from "./chain/contracts.json";
import { TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";
import { PRICE_UNITS, startHostile402, startOfficialX402, type OfficialX402 } from "./x402/official";
import { startSeller, type Seller } from "./x402/seller";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** m/44'/60'/1'/0/0 of the test mnemonic: the internal settlement signer. */
const INTERNAL_SIGNER = mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 1 }).address;
const usdcAbi = contracts.TestUSDC.abi as Abi;

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
const custody = async () => (await server.ledgerCheck()).chain.custody;
/** USDC the treasury sends by hand (the test holds its key: the mnemonic's index 0). */
async function treasuryTransfer(to: Address, amount: string) {
  const treasury = createWalletClient({ chain: x.anvil.chain, transport: http(x.anvil.rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 0 }) });
  return x.anvil.receipt(await treasury.writeContract({ address: x.usdc, abi: usdcAbi, functionName: "transfer", args: [to, usdc(amount)] }));
}

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

  test("USDC someone sent the internal signer: the seller's submission moves that (never the treasury's), and the seller is credited once", async () => {
    await x.mint(INTERNAL_SIGNER, "1");
    const buyer = await server.register();
    await server.deposit(buyer.id, 1);
    const before = { treasury: await x.balanceOf(TREASURY), seller: await server.balance(seller), address: await x.balanceOf(sellerAddress) };
    const paid = await server.request("POST", "/x402/pay", { key: buyer.apiKey, body: { url: `${shop.url}/report`, maxAmount: 1 } });
    expect(paid.body.payment).toMatchObject({ status: "SETTLED", internalAgentId: seller.id });
    expect(await submitOnChain(shop.received.at(-1)!)).toBe("success");
    await confirm();
    await confirm();
    expect(await x.balanceOf(TREASURY)).toBe(before.treasury);
    expect((await x.balanceOf(sellerAddress)) - before.address).toBe(usdc("1"));
    // Credited once, by the facilitator's sale; the signer's transfer into the address is not a deposit.
    expect(await server.balance(seller)).toEqual({ available: before.seller.available + 1, held: 0 });
    expect(await server.balance(buyer)).toEqual({ available: 0, held: 0 });
    const history = (await server.request("GET", "/wallets/history", { key: seller.apiKey })).body.data.map((entry: { type: string }) => entry.type);
    expect(history).not.toContain("DEPOSIT");
    // The USDC stays on the seller's address, more than was credited to it: reported, not a failure.
    const figures = await custody();
    expect(figures.ok).toBe(true);
    expect(figures.deposits.differences).toContainEqual({ agentId: seller.id, address: sellerAddress, onchainBalance: 1, credited: 0, difference: 1 });
    await expectLedgerOk(server);
  });
});

describe("the ledger check reconciles total custody", () => {
  test("a treasury transfer to a deposit address or the internal signer, made by hand, is reported and fails the check until the operator acknowledges it", async () => {
    const victim = await server.register();
    const victimAddress: Address = victim.registration.wallet.address;
    await x.mint(TREASURY, "1");
    const toAgent = await treasuryTransfer(victimAddress, "0.5");
    const toSigner = await treasuryTransfer(INTERNAL_SIGNER, "0.25");
    await confirm();
    await confirm();
    // Never credited: the treasury's USDC moved between agentbank's own addresses.
    expect(await server.balance(victim)).toEqual({ available: 0, held: 0 });
    const check = await server.ledgerCheck();
    expect(check.ok).toBe(false);
    expect(check.chain.status).toBe("mismatch");
    expect(check.chain.custodialTransfers).toEqual([
      { txHash: toAgent.transactionHash, logIndex: expect.any(Number), to: victimAddress, agentId: victim.id, amount: 0.5, acknowledged: null },
      { txHash: toSigner.transactionHash, logIndex: expect.any(Number), to: INTERNAL_SIGNER, agentId: null, amount: 0.25, acknowledged: null },
    ]);
    expect(check.chain.custody.deposits.differences).toContainEqual({ agentId: victim.id, address: victimAddress, onchainBalance: 0.5, credited: 0, difference: 0.5 });
    for (const transfer of check.chain.custodialTransfers) {
      const acknowledged = await server.admin("POST", "/admin/chain/acknowledge", { txHash: transfer.txHash, logIndex: transfer.logIndex, reason: "a test moving treasury USDC by hand" });
      expect(acknowledged.status).toBe(200);
    }
    const after = await server.ledgerCheck();
    expect(after.chain.custodialTransfers.map((transfer: { acknowledged: string }) => transfer.acknowledged)).toEqual(["a test moving treasury USDC by hand", "a test moving treasury USDC by hand"]);
    expect(after.chain).toMatchObject({ status: "ok", unexplainedTransfers: [], missingTransfers: [] });
    await expectLedgerOk(server);
  });

  test("the figures add up: a deposit on chain, a withdrawal, x402 to an outside payee (settled and in flight), and the operator's funding", async () => {
    const before = await custody();
    const agent = await server.register();
    await x.mint(agent.registration.wallet.address, "5");
    await x.mint(TREASURY, "2");
    await confirm();
    expect(await server.balance(agent)).toEqual({ available: 5, held: 0 });
    const target = privateKeyToAccount(generatePrivateKey()).address;
    const withdrawal = await server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: target, amount: 1 } });
    await waitFor(async () => {
      await confirm();
      const current = await server.request("GET", `/wallets/withdrawals/${withdrawal.body.id}`, { key: agent.apiKey });
      return current.body.status === "CONFIRMED" ? true : undefined;
    }, 15_000);
    const settled = await server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${x.v1Url}/paid`, maxAmount: 1 } });
    expect(settled.body.payment.status).toBe("SETTLED");
    // The handler fails without settling: PENDING, its money still in the treasury.
    const pending = await server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${x.v1Url}/fail`, maxAmount: 1 } });
    expect(pending.body.payment.status).toBe("PENDING");
    await confirm();
    const after = await custody();
    const price = Number(PRICE_UNITS) / 1e6;
    const moved = (key: "treasury" | "depositAddresses" | "internalSigner") => Math.round((after.onChain[key] - before.onChain[key]) * 1e6) / 1e6;
    expect([moved("treasury"), moved("depositAddresses"), moved("internalSigner")]).toEqual([2 - 1 - price, 5, 0]);
    expect(after.onChain.treasury).toBe(Number(await x.balanceOf(TREASURY)) / 1e6);
    expect(Math.round((after.owedToAgents - before.owedToAgents) * 1e6) / 1e6).toBe(5 - 1 - 2 * price);
    expect(after.inFlight).toEqual({ x402: before.inFlight.x402 + price, withdrawals: before.inFlight.withdrawals, total: before.inFlight.total + price });
    // Only the operator's funding changed the float.
    expect(Math.round((after.difference - before.difference) * 1e6) / 1e6).toBe(2);
    expect(Math.round((after.onChain.total - after.owedToAgents - after.inFlight.total) * 1e6) / 1e6).toBe(after.difference);
    expect(Math.round((after.deposits.credited - before.deposits.credited) * 1e6) / 1e6).toBe(5);
    expect(after.deposits).toMatchObject({ addresses: before.deposits.addresses + 1, withDifference: before.deposits.withDifference, read: { via: "multicall3", requests: 2 } });
    await expectLedgerOk(server);
  });
});

describe("last in this file: it moves the chain's clock", () => {
  test("an internal payee's payment its resource never settles through agentbank's facilitator is refunded when it expires, even if the chain used it (USDC someone sent the internal signer)", async () => {
    const buyer = await server.register();
    await server.deposit(buyer.id, 1);
    await x.mint(INTERNAL_SIGNER, "0.01");
    const resource = startHostile402({ payTo: sellerAddress });
    try {
      const paid = await server.request("POST", "/x402/pay", { key: buyer.apiKey, body: { url: `${resource.url}/v2/amount/${PRICE_UNITS}`, maxAmount: 1 } });
      expect(paid.body.payment).toMatchObject({ status: "PENDING", internalAgentId: seller.id });
      const before = { seller: await server.balance(seller), address: await x.balanceOf(sellerAddress), treasury: await x.balanceOf(TREASURY) };
      expect(await submitOnChain(resource.payments[0]!.header)).toBe("success");
      // The chain's time passes validBefore (at most 120 s ahead) in confirmed blocks.
      await x.anvil.client.request({ method: "evm_increaseTime" as never, params: [200] as never });
      await confirm();
      await confirm();
      // The chain never settles an internal payee's payment: the buyer has its money back, the seller is
      // not credited, and what the signer moved stays on the seller's address, uncredited.
      expect((await server.request("GET", `/x402/payments/${paid.body.payment.id}`, { key: buyer.apiKey })).body.status).toBe("REFUNDED");
      expect([await server.balance(buyer), await server.balance(seller)]).toEqual([{ available: 1, held: 0 }, before.seller]);
      expect((await x.balanceOf(sellerAddress)) - before.address).toBe(PRICE_UNITS);
      expect(await x.balanceOf(TREASURY)).toBe(before.treasury);
      expect((await custody()).ok).toBe(true);
      await expectLedgerOk(server);
    } finally {
      resource.stop();
    }
  });
});
