// POST /x402/pay toward resources that offer only the x402 `batch-settlement` scheme, against the official
// seller (test/x402/batch.ts: @x402/express, @x402/core's facilitator, @x402/evm's batch-settlement
// schemes) on the stand-in escrow: the deposit is a hold, each charged voucher is paid from it, closing
// returns the rest; restarts, failures, refusals and replays move nothing they should not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPublicClient, getAddress, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/client";
import { BATCH_SETTLEMENT_ADDRESS as OFFICIAL_ESCROW, ERC3009_DEPOSIT_COLLECTOR_ADDRESS as OFFICIAL_COLLECTOR, toClientEvmSigner } from "@x402/evm";
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "../src/x402/batch/wire";
import { TEST_MNEMONIC } from "./chain/anvil";
import { startBatchSeller, type BatchSeller } from "./x402/batch";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const PRICE = 0.01;
/** The official seller announces a minimum deposit of ten prices (extra.minDeposit): the deposit the service makes when maxAmount allows it. */
const DEPOSIT = 0.1;

let x: BatchSeller;
let server: TestServer;

beforeAll(async () => {
  x = await startBatchSeller();
  await x.mint(TREASURY, 100_000_000n);
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
});
afterAll(async () => {
  await server?.close();
  await x?.stop();
});

const pay = (agent: Agent, path: string, headers: Record<string, string> = {}, maxAmount = 1) =>
  server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${x.url}${path}`, maxAmount }, headers });
const channels = async (agent: Agent) => (await server.request("GET", "/x402/channels", { key: agent.apiKey })).body.data;
const close = (agent: Agent, id: string) => server.request("POST", `/x402/channels/${id}/close`, { key: agent.apiKey });
async function funded(amount = 10): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}
const cents = (value: number) => Math.round(value * 100) / 100;

describe("the stand-in escrow", () => {
  test("the service's escrow and deposit collector addresses are @x402/evm's", () => {
    expect(BATCH_SETTLEMENT_ADDRESS).toBe(OFFICIAL_ESCROW);
    expect(ERC3009_DEPOSIT_COLLECTOR_ADDRESS).toBe(OFFICIAL_COLLECTOR);
  });

  test("control: the official batch-settlement client pays the official seller on it, and its refund returns the rest", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await x.mint(payer.address, 1_000_000n);
    const reader = createPublicClient({ chain: x.anvil.chain, transport: http(x.anvil.rpcUrl) });
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(payer, reader as never));
    const paying = wrapFetchWithPayment(fetch, new x402Client().register("eip155:84532", scheme));
    for (let n = 0; n < 2; n++) expect((await paying(`${x.url}/paid`)).status).toBe(200);
    const refund = await scheme.refund(`${x.url}/paid`);
    expect(refund.success).toBe(true);
    expect(await x.balanceOf(payer.address)).toBe(1_000_000n - 20_000n);
  });
});

describe("paying over a channel", () => {
  test("N requests on one channel debit exactly what was charged; the seller's claim is that; closing returns the rest", async () => {
    const agent = await funded();
    const merchantBefore = await x.balanceOf(x.payTo);
    const treasuryBefore = await x.balanceOf(TREASURY);
    let id = "";
    for (let n = 1; n <= 3; n++) {
      const reply = await pay(agent, "/paid");
      expect(reply.status).toBe(200);
      expect(reply.body.payment).toBeNull();
      expect(reply.body.resource).toMatchObject({ status: 200, body: { data: "batch paid content" } });
      expect(reply.body.channel).toMatchObject({ status: "OPEN", deposit: DEPOSIT, lastCharge: PRICE, charged: cents(n * PRICE), remaining: cents(DEPOSIT - n * PRICE) });
      id ||= reply.body.channel.id;
      expect(reply.body.channel.id).toBe(id);
      expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - n * PRICE) });
      await expectLedgerOk(server);
    }
    // The deposit left the treasury on chain once, into the escrow.
    expect(treasuryBefore - (await x.balanceOf(TREASURY))).toBe(100_000n);
    await x.claimAndSettle();
    const channelId = (await channels(agent))[0].channelId;
    expect(await x.channel(channelId)).toEqual([100_000n, 30_000n]);
    // The seller claiming its vouchers again moves nothing: claims are cumulative.
    const merchantClaimed = await x.balanceOf(x.payTo);
    await x.claimAndSettle();
    expect(await x.channel(channelId)).toEqual([100_000n, 30_000n]);
    expect(await x.balanceOf(x.payTo)).toBe(merchantClaimed);
    expect((await x.balanceOf(x.payTo)) - merchantBefore).toBeGreaterThanOrEqual(30_000n);

    const closed = await close(agent, id);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: "CLOSED", charged: 0.03, refunded: 0.07 });
    expect(await server.balance(agent)).toEqual({ available: 9.97, held: 0 });
    expect(treasuryBefore - (await x.balanceOf(TREASURY))).toBe(30_000n);
    await expectLedgerOk(server);
    // Closing again moves nothing.
    expect((await close(agent, id)).body).toMatchObject({ status: "CLOSED", refunded: 0.07 });
    expect(await server.balance(agent)).toEqual({ available: 9.97, held: 0 });
    expect(await channels(agent)).toHaveLength(1);
    await expectLedgerOk(server);
  });

  test("a failing resource debits nothing for that request; the next voucher goes on from what was charged", async () => {
    const agent = await funded();
    expect((await pay(agent, "/paid")).body.channel.charged).toBe(PRICE);
    const failed = await pay(agent, "/fail");
    expect(failed.status).toBe(200);
    expect(failed.body.resource.status).toBe(500);
    expect(failed.body.channel).toMatchObject({ lastCharge: 0, charged: PRICE, signed: 0.02 });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - PRICE) });
    await expectLedgerOk(server);
    const next = await pay(agent, "/paid");
    expect(next.body.channel).toMatchObject({ lastCharge: PRICE, charged: 0.02, signed: 0.02 });
    await expectLedgerOk(server);
    const closed = await close(agent, next.body.channel.id);
    expect(closed.body).toMatchObject({ status: "CLOSED", charged: 0.02, refunded: 0.08 });
    expect(await server.balance(agent)).toEqual({ available: 9.98, held: 0 });
    await expectLedgerOk(server);
  });

  test("a voucher the seller refuses (it refunded the channel on its own) debits nothing; the close then reads the chain", async () => {
    const agent = await funded();
    const first = await pay(agent, "/paid");
    const channelId = first.body.channel.channelId;
    await x.refund([channelId]);
    const [balance, claimed] = await x.channel(channelId);
    expect(balance).toBe(claimed);
    const refused = await pay(agent, "/paid");
    expect(refused.status).toBe(200);
    // The official seller answers 402 to a voucher on a channel it emptied.
    expect(refused.body.channel.id).toBe(first.body.channel.id);
    expect(refused.body.resource.status).toBe(402);
    expect(refused.body.channel).toMatchObject({ lastCharge: 0, charged: PRICE });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - PRICE) });
    await expectLedgerOk(server);
    const closed = await close(agent, first.body.channel.id);
    expect(closed.body).toMatchObject({ status: "CLOSED", charged: PRICE, refunded: cents(DEPOSIT - PRICE) });
    await expectLedgerOk(server);
  });

  test("a restart between requests keeps the channel: the next request uses it", async () => {
    const agent = await funded();
    const first = await pay(agent, "/paid");
    await server.restart();
    const second = await pay(agent, "/paid");
    expect(second.status).toBe(200);
    expect(second.body.channel).toMatchObject({ id: first.body.channel.id, charged: 0.02 });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - 2 * PRICE) });
    await expectLedgerOk(server);
  });

  test("a replay with the same Idempotency-Key answers the first result and moves nothing", async () => {
    const agent = await funded();
    const first = await pay(agent, "/paid", { "Idempotency-Key": "batch-replay-1" });
    const again = await pay(agent, "/paid", { "Idempotency-Key": "batch-replay-1" });
    expect(again.status).toBe(200);
    expect(again.body.channel).toMatchObject({ id: first.body.channel.id, charged: PRICE, lastCharge: PRICE });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - PRICE) });
    expect((await channels(agent))[0]).toMatchObject({ charged: PRICE, signed: PRICE });
    await expectLedgerOk(server);
  });

  test("the deposit is the outflow: within maxAmount, refused above the balance, refused when frozen; nothing signed leaves", async () => {
    const small = await funded(0.03);
    const capped = await pay(small, "/paid", {}, 0.02);
    expect(capped.body.channel).toMatchObject({ deposit: 0.02, charged: PRICE });
    const poor = await funded(0.005);
    const refused = await pay(poor, "/paid");
    expect(refused.status).toBe(400);
    expect(await channels(poor)).toHaveLength(0);
    expect(await server.balance(poor)).toEqual({ available: 0.005, held: 0 });
    const frozen = await funded();
    expect((await server.request("POST", `/owner/agents/${frozen.id}/freeze`, { key: frozen.ownerKey })).status).toBe(200);
    expect((await pay(frozen, "/paid")).status).toBe(403);
    expect(await channels(frozen)).toHaveLength(0);
    await expectLedgerOk(server);
  });

  test("the owner's approval binds the deposit: held with nothing signed, approved it opens the channel once", async () => {
    const agent = await funded();
    expect((await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { approvalAbove: { USDC: 0.05 } } })).status).toBe(200);
    const treasuryBefore = await x.balanceOf(TREASURY);
    const held = await pay(agent, "/paid");
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", kind: "X402", amount: DEPOSIT });
    expect(await channels(agent)).toHaveLength(0);
    expect(await x.balanceOf(TREASURY)).toBe(treasuryBefore);
    const approved = await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.ownerKey });
    expect(approved.body).toMatchObject({ status: "APPROVED", kind: "X402" });
    const seen = (await server.request("GET", `/approvals/${held.body.approvalId}`, { key: agent.apiKey })).body;
    expect(seen.result).toMatchObject({ payment: null, channel: { deposit: DEPOSIT, charged: PRICE }, resource: { status: 200 } });
    expect(await channels(agent)).toHaveLength(1);
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - PRICE) });
    await expectLedgerOk(server);
  });

  test("a restricted key's budget counts the deposit; its channel is its own", async () => {
    const agent = await funded();
    const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "buyer", scopes: ["x402", "read"], budgets: { USDC: { total: 0.05 } } } });
    expect(made.status).toBe(201);
    const key = made.body.apiKey;
    const over = await server.request("POST", "/x402/pay", { key, body: { url: `${x.url}/paid`, maxAmount: 1 } });
    expect(over.status).toBe(403);
    expect(over.body.error).toBe("KEY_BUDGET_EXCEEDED");
    const within = await server.request("POST", "/x402/pay", { key, body: { url: `${x.url}/paid`, maxAmount: 0.05 } });
    expect(within.body.channel).toMatchObject({ deposit: 0.05, charged: PRICE });
    // The agent key's request does not use the restricted key's channel.
    const own = await pay(agent, "/paid");
    expect(own.body.channel.id).not.toBe(within.body.channel.id);
    expect((await server.request("POST", `/x402/channels/${within.body.channel.id}/close`, { key })).body).toMatchObject({ status: "CLOSED", refunded: 0.04 });
    await expectLedgerOk(server);
  });

  test("a channel toward an agent's deposit address is refused: treasury USDC never moves on chain to agentbank's addresses", async () => {
    const payee = await server.register();
    const agent = await funded();
    const address = (await server.request("GET", "/wallets/blockchain", { key: payee.apiKey })).body.address;
    x.setOtherPayTo(getAddress(address));
    const treasuryBefore = await x.balanceOf(TREASURY);
    const reply = await pay(agent, "/to");
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain("deposit address");
    expect(await channels(agent)).toHaveLength(0);
    expect(await x.balanceOf(TREASURY)).toBe(treasuryBefore);
    await expectLedgerOk(server);
  });

  // These two move the chain's clock on.
  test("a first request that fails leaves a channel whose deposit never landed: the next request opens another; the first closes, all returned, once its authorization expired", async () => {
    const agent = await funded();
    const failed = await pay(agent, "/fail");
    expect(failed.body.channel).toMatchObject({ charged: 0, lastCharge: 0 });
    const [balance] = await x.channel(failed.body.channel.channelId);
    expect(balance).toBe(0n);
    const next = await pay(agent, "/paid");
    expect(next.body.channel.id).not.toBe(failed.body.channel.id);
    expect(next.body.channel.charged).toBe(PRICE);
    expect((await close(agent, failed.body.channel.id)).status).toBe(409);
    await expectLedgerOk(server);
    await x.increaseTime(61);
    expect((await close(agent, failed.body.channel.id)).body).toMatchObject({ status: "CLOSED", charged: 0, refunded: DEPOSIT });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - PRICE) });
    await expectLedgerOk(server);
  });

  test("a seller that refuses the refund: the treasury's withdrawal waits out the delay (the seller may claim meanwhile), then the rest returns", async () => {
    const agent = await funded();
    const treasuryBefore = await x.balanceOf(TREASURY);
    await pay(agent, "/paid");
    const id = (await pay(agent, "/paid")).body.channel.id;
    x.refuseRefunds(true);
    try {
      const closing = await close(agent, id);
      expect(closing.status).toBe(200);
      expect(closing.body).toMatchObject({ status: "CLOSING", charged: 0.02, refunded: null });
      expect(closing.body.withdrawableAt).not.toBeNull();
      expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: cents(DEPOSIT - 2 * PRICE) });
      // A CLOSING channel takes no more vouchers: the next request opens another.
      const other = await pay(agent, "/paid");
      expect(other.body.channel.id).not.toBe(id);
      expect((await close(agent, id)).status).toBe(409);
      await expectLedgerOk(server);
      // During the delay the seller claims the vouchers it holds.
      await x.claimAndSettle();
      // Once the delay has passed, the job finalizes it: the agent need not come back.
      // (The chain's clock is ahead of the service's by the earlier test's 61 s: the service's moves further.)
      await x.increaseTime(901);
      await server.advance(1_000);
      const closed = (await channels(agent)).find((channel: { id: string }) => channel.id === id);
      expect(closed).toMatchObject({ status: "CLOSED", charged: 0.02, refunded: cents(DEPOSIT - 2 * PRICE) });
      expect((await close(agent, id)).body).toMatchObject({ status: "CLOSED", refunded: cents(DEPOSIT - 2 * PRICE) });
      expect(await server.balance(agent)).toEqual({ available: cents(10 - 2 * PRICE - DEPOSIT), held: cents(DEPOSIT - PRICE) });
      // On chain: this channel cost the treasury exactly what was charged (the other channel holds its deposit).
      expect(treasuryBefore - (await x.balanceOf(TREASURY))).toBe(20_000n + 100_000n);
      await expectLedgerOk(server);
    } finally {
      x.refuseRefunds(false);
    }
  });

  // After the two above: it moves the chain's clock on too.
  test("the key that opened a channel is revoked: the job closes the channel for the agent once its deposit can no longer land, all of it back", async () => {
    const agent = await funded();
    const made = await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "buyer", scopes: ["x402", "read"], budgets: { USDC: { total: 1 } } } });
    expect(made.status).toBe(201);
    const failed = await server.request("POST", "/x402/pay", { key: made.body.apiKey, body: { url: `${x.url}/fail`, maxAmount: 1 } });
    expect(failed.body.channel).toMatchObject({ status: "OPEN", deposit: DEPOSIT, charged: 0 });
    expect((await server.request("DELETE", `/agents/me/keys/${made.body.id}`, { key: agent.apiKey })).status).toBe(200);
    // Its deposit's authorization can still be used: the job's close is 409, the hold stays, the next round tries again.
    await server.advance(1);
    expect((await channels(agent))[0]).toMatchObject({ id: failed.body.channel.id, status: "OPEN" });
    expect(await server.balance(agent)).toEqual({ available: 10 - DEPOSIT, held: DEPOSIT });
    await expectLedgerOk(server);
    await x.increaseTime(61);
    await server.advance(1);
    expect((await channels(agent))[0]).toMatchObject({ id: failed.body.channel.id, status: "CLOSED", charged: 0, refunded: DEPOSIT });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    await expectLedgerOk(server);
  });
});
