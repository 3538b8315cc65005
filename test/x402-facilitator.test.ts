// agentbank as the x402 v2 facilitator of its agents' own endpoints: a resource server built only from
// @x402/express + @x402/core + @x402/evm, pointed at /x402/facilitator with the seller agent's key, paid
// by the official @x402/fetch client from an outside wallet on anvil (posing as base-sepolia), and by an
// agentbank agent through /x402/pay (settled in the ledger, no transaction).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { TREASURY_SENDER } from "../src/chain/sender";
import { lockKey } from "../src/db/postgres";
import { directDatabase } from "./helpers/database";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";
import { NETWORK_V2, PRICE_UNITS, recordingPaymentFetch, signedPayment, startOfficialX402, type OfficialX402 } from "./x402/official";
import { loseBroadcastAndRestart } from "./x402/recovery";
import { facilitatorChainEnv, startSeller, type Seller } from "./x402/seller";

let x: OfficialX402;
let server: TestServer;
let seller: Agent;
let other: Agent;
let sellerAddress: Address;
let otherAddress: Address;
let shop: Seller;
const buyer = privateKeyToAccount(generatePrivateKey());
const poor = privateKeyToAccount(generatePrivateKey());
/** The payment headers the buyer's client sent, in order. */
const sent: string[] = [];
const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** Runs SQL directly on the test server's database: to look at the sales rows, or corrupt them on purpose. */
let execute: (sql: string) => Promise<Record<string, unknown>[]>;
let disconnect: () => void = () => {};

const recordingFetch = recordingPaymentFetch(sent);
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

const authorizationOf = (body: Awaited<ReturnType<typeof signedPayment>>) => body.paymentPayload.payload.authorization as { from: Address; to: Address; nonce: string };
const payment = (account: PrivateKeyAccount, changes: { to?: Address; value?: bigint; validBefore?: bigint } = {}) =>
  signedPayment(x, account, { to: sellerAddress, ...changes });

beforeAll(async () => {
  x = await startOfficialX402();
  server = await startServer({ env: facilitatorChainEnv(x) });
  seller = await server.register();
  other = await server.register();
  [sellerAddress, otherAddress] = await Promise.all([addressOf(seller), addressOf(other)]);
  await x.mint(buyer.address, "1");
  // Funded, so that a settlement wrongly sent to the chain would show in its balance.
  await x.mint(TREASURY, "1");
  ({ execute, close: disconnect } = directDatabase(server));
  shop = await startSeller(server.url, seller.apiKey, {
    "/weather": { payTo: sellerAddress, price: "$0.01", answer: { city: "Paris", temperatureC: 21 }, description: "Weather in Paris", extensions: declareDiscoveryExtension({ output: { example: { city: "Paris", temperatureC: 21 } } }) },
    "/elsewhere": { payTo: otherAddress, price: "$0.01", answer: { nope: true }, description: "paid to another agent" },
  });
});
afterAll(async () => {
  disconnect();
  shop?.close();
  await server?.close();
  await x?.stop();
});

describe("agentbank as the x402 facilitator of its agents' own endpoints", () => {
  test("GET /supported names exact, and upto with the facilitator's address, on the configured network", async () => {
    const answer = await server.request("GET", "/x402/facilitator/supported", { key: seller.apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body.kinds).toEqual([{ x402Version: 2, scheme: "exact", network: NETWORK_V2 }, { x402Version: 2, scheme: "upto", network: NETWORK_V2, extra: { facilitatorAddress: TREASURY } }]);
    expect(answer.body.signers).toEqual({ "eip155:*": [TREASURY] });
    expect(answer.body.extensions).toEqual(["bazaar", "payment-identifier"]);
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

  test("ten settles of one authorization at once claim it once, send one transaction and answer the same outcome", async () => {
    const body = await payment(buyer);
    const buyerBefore = await x.balanceOf(buyer.address);
    const treasuryNonceBefore = await x.anvil.client.getTransactionCount({ address: TREASURY });
    // Every request is built first and released together (the barrier), so their checks overlap.
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const settles = Array.from({ length: 10 }, () => barrier.then(() => facilitator(seller, "settle", body)));
    release();
    const answers = await Promise.all(settles);
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.body.success).toBe(true);
    for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
    const again = await facilitator(seller, "settle", body);
    expect(again.body).toEqual(answers[0]!.body);
    const { nonce } = authorizationOf(body);
    expect(await execute(`SELECT id FROM x402_sales WHERE nonce = '${nonce.toLowerCase()}'`)).toHaveLength(1);
    expect((await x.anvil.client.getTransactionCount({ address: TREASURY })) - treasuryNonceBefore).toBe(1);
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    expect(await usdcBalance(seller)).toBe(0.02);
    await expectLedgerOk(server);
  });

  test("a claim never sent (the service stopped between the claim and the send) fails as such and is never sent later", async () => {
    const body = await payment(buyer);
    const { from, to, nonce } = authorizationOf(body);
    await execute(
      `INSERT INTO x402_sales (id, agent_id, payer, nonce, pay_to, amount, status, gas, created_at, updated_at)
       VALUES ('0198f410-0000-7000-8000-00000000dead', '${seller.id}', '${getAddress(from)}', '${nonce.toLowerCase()}', '${getAddress(to)}', ${PRICE_UNITS}, 'SUBMITTING', 150000, 0, 0)`,
    );
    const buyerBefore = await x.balanceOf(buyer.address);
    const treasuryNonceBefore = await x.anvil.client.getTransactionCount({ address: TREASURY });
    const settled = await facilitator(seller, "settle", body);
    expect(settled.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_transaction_failed", transaction: "" });
    expect(settled.body.errorMessage).toContain("never submitted");
    expect((await facilitator(seller, "settle", body)).body).toEqual(settled.body);
    expect((await facilitator(seller, "verify", body)).body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    const rows = await execute(`SELECT status, gas FROM x402_sales WHERE nonce = '${nonce.toLowerCase()}'`);
    expect(rows.map((row) => [row.status, Number(row.gas)])).toEqual([["FAILED", 0]]);
    await confirm();
    expect(await x.anvil.client.getTransactionCount({ address: TREASURY })).toBe(treasuryNonceBefore);
    expect(await x.balanceOf(buyer.address)).toBe(buyerBefore);
    await expectLedgerOk(server);
  });

  test("an agentbank agent paying the seller's server through /x402/pay is settled in the ledger: no transaction, the seller credited once", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 1);
    const chainBefore = {
      treasuryNonce: await x.anvil.client.getTransactionCount({ address: TREASURY }),
      treasury: await x.balanceOf(TREASURY),
      seller: await x.balanceOf(sellerAddress),
    };
    const sellerBefore = await usdcBalance(seller);
    const scoreBefore = (await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score;
    const paid = await server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${shop.url}/weather`, maxAmount: 1 } });
    expect(paid.status).toBe(200);
    expect(paid.body.resource).toMatchObject({ status: 200, body: { city: "Paris", temperatureC: 21 } });
    expect(paid.body.payment).toMatchObject({ status: "SETTLED", internalAgentId: seller.id, transaction: null });
    const header = shop.received.at(-1)!;
    // The seller's server got its answer, settled by the facilitator; a replay of the header is refused.
    expect((await fetch(`${shop.url}/weather`, { headers: { "PAYMENT-SIGNATURE": header } })).status).toBe(402);
    const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    const again = await facilitator(seller, "settle", { x402Version: 2, paymentPayload: decoded, paymentRequirements: decoded.accepted });
    expect(again.body).toMatchObject({ success: true, transaction: "", amount: String(PRICE_UNITS) });
    await confirm();
    await confirm();
    expect(await x.anvil.client.getTransactionCount({ address: TREASURY })).toBe(chainBefore.treasuryNonce);
    expect([await x.balanceOf(TREASURY), await x.balanceOf(sellerAddress)]).toEqual([chainBefore.treasury, chainBefore.seller]);
    expect(await server.balance(agent)).toEqual({ available: 0.99, held: 0 });
    expect(await usdcBalance(seller)).toBeCloseTo(sellerBefore + 0.01, 6);
    const history = (await server.request("GET", "/wallets/history", { key: seller.apiKey })).body.data;
    expect(history[0]).toMatchObject({ type: "X402_SALE", amount: 0.01 });
    expect(history.filter((entry: { type: string }) => entry.type === "X402_SALE")).toHaveLength(3);
    expect((await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score).toBe(scoreBefore + 1);
    const check = await server.ledgerCheck();
    expect(check.x402Sales).toMatchObject({ ok: true, settledInLedger: 1, mismatches: [] });
    await expectLedgerOk(server);
  });

  test("the ledger check reconciles every sale: a corrupted sale row is a mismatch", async () => {
    expect((await server.ledgerCheck()).x402Sales).toMatchObject({ ok: true, settledOnChain: 2, awaitingCredit: 0 });
    for (const kind of ["tx_hash IS NOT NULL", "tx_hash IS NULL"]) {
      const [sale] = await execute(`SELECT id FROM x402_sales WHERE status = 'SETTLED' AND ${kind} LIMIT 1`);
      await execute(`UPDATE x402_sales SET amount = amount + 1 WHERE id = '${sale!.id}'`);
      const check = await server.ledgerCheck();
      expect(check.ok).toBe(false);
      expect(check.x402Sales.ok).toBe(false);
      expect(check.x402Sales.mismatches.map((m: { saleId: string }) => m.saleId)).toContain(sale!.id);
      await execute(`UPDATE x402_sales SET amount = amount - 1 WHERE id = '${sale!.id}'`);
      await expectLedgerOk(server);
    }
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

  test("discovery lists the resource that carried the bazaar extension and sold (test/x402-facilitator-farming.test.ts: the bounds)", async () => {
    const list = await server.request("GET", "/x402/facilitator/discovery/resources", { key: other.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ resource: `${shop.url}/weather`, sellerAgentId: seller.id, type: "http", x402Version: 2, description: "Weather in Paris", descriptionTrust: "untrusted" });
    expect(list.body.data[0].extensions.bazaar).toBeDefined();
    await expectLedgerOk(server);
  });

  test.skipIf(TEST_POSTGRES === undefined)("a settle that waits for the treasury's lock past its bound answers 503 SERVICE_BUSY having claimed nothing; the same payment settles after", async () => {
    const body = await payment(buyer);
    const { nonce } = authorizationOf(body);
    // Another instance holds the treasury's sender lock for longer than a settle waits.
    const other = new SQL(server.sharedDatabaseEnv.DATABASE_URL!);
    const session = await other.reserve();
    await session.unsafe("SELECT pg_advisory_lock($1)", [lockKey(TREASURY_SENDER)]);
    try {
      const busy = await facilitator(seller, "settle", body);
      expect([busy.status, busy.body.error, busy.headers.get("retry-after")]).toEqual([503, "SERVICE_BUSY", "1"]);
      expect(await execute(`SELECT id FROM x402_sales WHERE nonce = '${nonce.toLowerCase()}'`)).toEqual([]);
    } finally {
      await session.unsafe("SELECT pg_advisory_unlock($1)", [lockKey(TREASURY_SENDER)]);
      session.release();
      await other.close();
    }
    const buyerBefore = await x.balanceOf(buyer.address);
    expect((await facilitator(seller, "settle", body)).body).toMatchObject({ success: true, amount: String(PRICE_UNITS) });
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    await expectLedgerOk(server);
  }, 30_000);
});

describe("the facilitator's order of checks, payment-identifier, parallel settles and restart recovery", () => {
  const garbage = { nothing: "here" };
  const withScheme = async (scheme: string, network: string, payload: unknown = garbage) => {
    const body = await payment(buyer);
    const requirements = { ...body.paymentRequirements, scheme, network };
    return { ...body, paymentPayload: { ...body.paymentPayload, accepted: requirements, payload }, paymentRequirements: requirements };
  };
  const cases: [string, () => Promise<unknown>, string][] = [
    ["an unknown scheme, with a payload no scheme reads", () => withScheme("bogus", NETWORK_V2), "unsupported_scheme"],
    ["another network, with a payload no scheme reads", () => withScheme("exact", "eip155:1"), "invalid_network"],
    ["upto with a payload that is no Permit2 authorization", () => withScheme("upto", NETWORK_V2), "unsupported_payload_type"],
    ["exact with a payload that is no EIP-3009 authorization", () => withScheme("exact", NETWORK_V2), "invalid_exact_evm_payload"],
  ];
  for (const [name, make, reason] of cases) {
    test(`${name}: verify and settle answer 200 with ${reason}, nothing moves`, async () => {
      const body = await make();
      const treasuryNonce = await x.anvil.client.getTransactionCount({ address: TREASURY });
      const verified = await facilitator(seller, "verify", body);
      expect([verified.status, verified.body.isValid, verified.body.invalidReason]).toEqual([200, false, reason]);
      const settled = await facilitator(seller, "settle", body);
      expect([settled.status, settled.body.success, settled.body.errorReason, settled.body.transaction]).toEqual([200, false, reason, ""]);
      expect(await x.anvil.client.getTransactionCount({ address: TREASURY })).toBe(treasuryNonce);
      await expectLedgerOk(server);
    });
  }

  test("a request without the envelope's scheme is a 400 VALIDATION_ERROR: nothing could route it", async () => {
    const body = await payment(buyer);
    const { scheme: _, ...requirements } = body.paymentRequirements;
    const answer = await facilitator(seller, "verify", { ...body, paymentRequirements: requirements });
    expect([answer.status, answer.body.error]).toEqual([400, "VALIDATION_ERROR"]);
  });

  test("payment-identifier: the same id and payment answers the first result; the same id with another payment is refused, nothing moves", async () => {
    const extensions = { "payment-identifier": { info: { required: false, id: "pay_facilitator_test_0001" } } };
    const first = await payment(buyer, {});
    const named = { ...first, paymentPayload: { ...first.paymentPayload, extensions } };
    const settled = await facilitator(seller, "settle", named);
    expect(settled.body).toMatchObject({ success: true, amount: String(PRICE_UNITS) });
    expect((await facilitator(seller, "settle", named)).body).toEqual(settled.body);
    const second = await payment(buyer, {});
    const reused = { ...second, paymentPayload: { ...second.paymentPayload, extensions } };
    const buyerBefore = await x.balanceOf(buyer.address);
    const treasuryNonce = await x.anvil.client.getTransactionCount({ address: TREASURY });
    const refused = await facilitator(seller, "settle", reused);
    expect(refused.body).toMatchObject({ success: false, errorReason: "payment_identifier_conflict", transaction: "" });
    await confirm();
    await confirm();
    expect(await x.anvil.client.getTransactionCount({ address: TREASURY })).toBe(treasuryNonce);
    expect(await x.balanceOf(buyer.address)).toBe(buyerBefore);
    expect(await execute(`SELECT id FROM x402_sales WHERE nonce = '${authorizationOf(second).nonce.toLowerCase()}'`)).toEqual([]);
    await expectLedgerOk(server);
  });

  test("payment-identifier: the id is the payer's own — another buyer's payment under an id already used is settled", async () => {
    const extensions = { "payment-identifier": { info: { required: false, id: "pay_facilitator_test_0002" } } };
    const first = await payment(buyer, {});
    expect((await facilitator(seller, "settle", { ...first, paymentPayload: { ...first.paymentPayload, extensions } })).body).toMatchObject({ success: true });
    // Another buyer who learned the id (or chose it) neither is refused nor makes the first one's outcome its own.
    const other = privateKeyToAccount(generatePrivateKey());
    await x.mint(other.address, "1");
    const theirs = await payment(other, {});
    const settled = await facilitator(seller, "settle", { ...theirs, paymentPayload: { ...theirs.paymentPayload, extensions } });
    expect(settled.body).toMatchObject({ success: true, payer: other.address });
    await confirm();
    await confirm();
    await expectLedgerOk(server);
  });

  test("three times the database pool of settles of one payment at once send one transaction", async () => {
    const body = await payment(buyer);
    const buyerBefore = await x.balanceOf(buyer.address);
    const sellerBefore = await usdcBalance(seller);
    const treasuryNonce = await x.anvil.client.getTransactionCount({ address: TREASURY });
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const settles = Array.from({ length: 3 * 16 }, () => barrier.then(() => facilitator(seller, "settle", body)));
    release();
    const answers = await Promise.all(settles);
    expect(answers[0]!.body).toMatchObject({ success: true });
    for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
    expect((await x.anvil.client.getTransactionCount({ address: TREASURY })) - treasuryNonce).toBe(1);
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    expect(await usdcBalance(seller)).toBeCloseTo(sellerBefore + 0.01, 6);
    await expectLedgerOk(server);
  }, 60_000);

  test("a settlement broadcast but never mined, the node losing it and the service killed: at restart the same transaction is sent again, the seller credited once", async () => {
    const body = await payment(buyer);
    const { nonce } = authorizationOf(body);
    const buyerBefore = await x.balanceOf(buyer.address);
    const sellerBefore = await usdcBalance(seller);
    const treasuryNonce = await x.anvil.client.getTransactionCount({ address: TREASURY });
    const { database } = await loseBroadcastAndRestart(x, server, { execute, close: disconnect }, nonce.toLowerCase(), () => facilitator(seller, "settle", body));
    ({ execute, close: disconnect } = database);
    const settled = await facilitator(seller, "settle", body);
    expect(settled.body).toMatchObject({ success: true, amount: String(PRICE_UNITS) });
    expect((await x.anvil.client.getTransactionCount({ address: TREASURY })) - treasuryNonce).toBe(1);
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(PRICE_UNITS);
    await confirm();
    await confirm();
    expect(await usdcBalance(seller)).toBeCloseTo(sellerBefore + 0.01, 6);
    expect(await execute(`SELECT status FROM x402_sales WHERE nonce = '${nonce.toLowerCase()}'`)).toEqual([{ status: "SETTLED" }]);
    await expectLedgerOk(server);
  }, 60_000);
});
