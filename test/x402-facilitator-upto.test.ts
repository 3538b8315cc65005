// agentbank's facilitator settling the x402 `upto` scheme: the official upto seller (@x402/express with
// @x402/evm's upto server scheme, test/x402/official.ts startUptoSeller) pointed at /x402/facilitator
// with the seller agent's key, paid by the official @x402/fetch client with @x402/evm's upto client
// scheme from an outside wallet, on the real Permit2 and the upto proxy (stand-in) on anvil. The seller
// is credited once, by the chain watcher, for the amount the Transfer moved.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { toClientEvmSigner } from "@x402/evm";
import { directDatabase } from "./helpers/database";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { NETWORK_V2, recordingPaymentFetch, startOfficialX402, startUptoSeller, UPTO_MAX_UNITS, type OfficialX402, type UptoSeller } from "./x402/official";
import { facilitatorChainEnv } from "./x402/seller";
import { loseBroadcastAndRestart } from "./x402/recovery";
import { signedUptoPayment } from "./x402/upto";

let x: OfficialX402;
let server: TestServer;
let seller: Agent;
let sellerAddress: Address;
let shop: UptoSeller;
let pay: typeof fetch;
let execute: (sql: string) => Promise<Record<string, unknown>[]>;
let disconnect: () => void = () => {};
const buyer = privateKeyToAccount(generatePrivateKey());
const sent: string[] = [];
const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");

const usdcBalance = async () => (await server.request("GET", "/wallets/balance", { key: seller.apiKey })).body.balances.find((b: { currency: string }) => b.currency === "USDC")?.available ?? 0;
const facilitator = (path: "verify" | "settle", body: unknown) => server.request("POST", `/x402/facilitator/${path}`, { key: seller.apiKey, body });
const treasuryNonce = () => x.anvil.client.getTransactionCount({ address: TREASURY });
/** Mines a block and lets the chain watcher run. */
async function confirm(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}
/** A payment signed for agentbank's facilitator (the treasury), to the seller; `settle`: the amount the seller asks. */
async function uptoPayment(changes: { deadline?: bigint; settle?: bigint } = {}) {
  const { settleArgs: _, ...body } = await signedUptoPayment(x, buyer, { to: sellerAddress, facilitator: TREASURY, deadline: changes.deadline });
  return changes.settle === undefined ? body : { ...body, paymentRequirements: { ...body.paymentRequirements, amount: String(changes.settle) } };
}

beforeAll(async () => {
  x = await startOfficialX402();
  server = await startServer({ env: facilitatorChainEnv(x) });
  seller = await server.register();
  sellerAddress = (await server.request("GET", "/wallets/blockchain", { key: seller.apiKey })).body.address;
  await x.mint(buyer.address, "1");
  await x.approvePermit2(buyer.address);
  ({ execute, close: disconnect } = directDatabase(server));
  shop = await startUptoSeller({ facilitatorUrl: `${server.url}/x402/facilitator`, payTo: sellerAddress, facilitatorKey: seller.apiKey });
  pay = wrapFetchWithPayment(recordingPaymentFetch(sent), new x402Client().register(NETWORK_V2, new UptoEvmScheme(toClientEvmSigner(buyer)))) as typeof fetch;
});
afterAll(async () => {
  disconnect();
  await shop?.stop();
  await server?.close();
  await x?.stop();
});

describe("agentbank's facilitator settles upto", () => {
  test("the official upto seller on agentbank's facilitator is paid by the official client: 12345 units settled of the 0.05 maximum, the seller credited once for them", async () => {
    const buyerBefore = await x.balanceOf(buyer.address);
    const scoreBefore = (await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score;
    const response = await pay(`${shop.url}/metered?charge=12345`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ charged: "12345" });
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, amount: "12345" });
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(12345n);
    await confirm();
    await confirm();
    expect(await usdcBalance()).toBe(0.012345);
    expect((await server.request("GET", "/agents/me", { key: seller.apiKey })).body.score).toBe(scoreBefore + 1);
    const history = (await server.request("GET", "/wallets/history", { key: seller.apiKey })).body.data;
    expect(history.filter((entry: { type: string }) => entry.type === "X402_SALE")).toEqual([expect.objectContaining({ amount: 0.012345 })]);
    const sales = await execute("SELECT scheme, amount, status, tx_hash FROM x402_sales");
    expect(sales.map((row) => [row.scheme, Number(row.amount), row.status, row.tx_hash])).toEqual([["upto", 12345, "SETTLED", settlement.transaction]]);
    expect((await server.ledgerCheck()).x402Sales).toMatchObject({ ok: true, settledOnChain: 1, mismatches: [] });
    await expectLedgerOk(server);
  });

  test("replaying the payment header moves nothing", async () => {
    const buyerBefore = await x.balanceOf(buyer.address);
    const before = await treasuryNonce();
    const replay = await fetch(`${shop.url}/metered?charge=12345`, { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
    expect(replay.status).toBe(402);
    await confirm();
    expect([await x.balanceOf(buyer.address), await treasuryNonce(), await usdcBalance()]).toEqual([buyerBefore, before, 0.012345]);
    await expectLedgerOk(server);
  });

  test("three times the database pool of settles of one payment at once send one transaction for the amount asked", async () => {
    const body = await uptoPayment({ settle: 20_000n });
    expect((await facilitator("verify", await uptoPayment())).body).toMatchObject({ isValid: true, payer: buyer.address });
    const buyerBefore = await x.balanceOf(buyer.address);
    const before = await treasuryNonce();
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const settles = Array.from({ length: 3 * 16 }, () => barrier.then(() => facilitator("settle", body)));
    release();
    const answers = await Promise.all(settles);
    expect(answers[0]!.body).toMatchObject({ success: true, amount: "20000" });
    for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
    expect((await treasuryNonce()) - before).toBe(1);
    expect(buyerBefore - (await x.balanceOf(buyer.address))).toBe(20_000n);
    await confirm();
    await confirm();
    expect(await usdcBalance()).toBe(0.032345);
    await expectLedgerOk(server);
  }, 60_000);

  const refusals: [string, () => Promise<unknown>, string][] = [
    ["an expired permit", () => uptoPayment({ deadline: BigInt(Math.floor(Date.now() / 1000)) - 10n }), "permit2_deadline_expired"],
    ["a settled amount above the permitted maximum", () => uptoPayment({ settle: UPTO_MAX_UNITS + 1n }), "invalid_upto_evm_payload_settlement_exceeds_amount"],
  ];
  for (const [name, make, reason] of refusals) {
    test(`${name}: settle refuses it with ${reason}, nothing moves`, async () => {
      const body = await make();
      const buyerBefore = await x.balanceOf(buyer.address);
      const [before, balance] = [await treasuryNonce(), await usdcBalance()];
      const settled = await facilitator("settle", body);
      expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: "" });
      await confirm();
      expect([await x.balanceOf(buyer.address), await treasuryNonce(), await usdcBalance()]).toEqual([buyerBefore, before, balance]);
      await expectLedgerOk(server);
    });
  }

  test("a permit naming another facilitator is refused (upto_facilitator_mismatch), nothing moves", async () => {
    const { settleArgs: _, ...body } = await signedUptoPayment(x, buyer, { to: sellerAddress, facilitator: buyer.address });
    const before = await treasuryNonce();
    expect((await facilitator("verify", body)).body).toMatchObject({ isValid: false, invalidReason: "upto_facilitator_mismatch" });
    expect((await facilitator("settle", body)).body).toMatchObject({ success: false, errorReason: "upto_facilitator_mismatch" });
    expect(await treasuryNonce()).toBe(before);
  });

  test("a settlement broadcast but never mined, the node losing it and the service killed: at restart the same transaction is sent again, the seller credited once", async () => {
    const body = await uptoPayment({ settle: 15_000n });
    const nonce = `permit2:${body.paymentPayload.payload.permit2Authorization.nonce}`;
    const buyerBefore = await x.balanceOf(buyer.address);
    const [before, balance] = [await treasuryNonce(), await usdcBalance()];
    const { database, hash } = await loseBroadcastAndRestart(x, server, { execute, close: disconnect }, nonce, () => facilitator("settle", body));
    ({ execute, close: disconnect } = database);
    expect((await facilitator("settle", body)).body).toMatchObject({ success: true, amount: "15000", transaction: hash });
    expect([(await treasuryNonce()) - before, buyerBefore - (await x.balanceOf(buyer.address))]).toEqual([1, 15_000n]);
    await confirm();
    await confirm();
    expect(await usdcBalance()).toBeCloseTo(balance + 0.015, 6);
    const rows = await execute(`SELECT status, amount FROM x402_sales WHERE nonce = '${nonce}'`);
    expect(rows.map((row) => [row.status, Number(row.amount)])).toEqual([["SETTLED", 15000]]);
    await expectLedgerOk(server);
  }, 60_000);
});
