// agentbank's x402 client against real peers: resource servers built only from the official packages
// (x402-express for v1, @x402/express + @x402/core + @x402/evm for v2) with a facilitator made of their
// own verify/settle, on anvil posing as base-sepolia (test/x402/official.ts), plus a raw attacker
// server for crafted requirements. After every scenario the ledger check reconciles with the chain.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, getAddress, http, type Abi, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import contracts from "./chain/contracts.json";
import { TEST_MNEMONIC, testActor } from "./chain/anvil";
import { HOSTILE_CASES, PRICE_UNITS, startHostile402, startOfficialX402, type Hostile402, type OfficialX402 } from "./x402/official";
import { block, financialNotifications } from "./helpers/inbox";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** m/44'/60'/1'/0/0 of the test mnemonic: the internal settlement signer, which pays agentbank's own payees. */
const INTERNAL_SIGNER = mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 1 }).address;
const PRICE = Number(PRICE_UNITS) / 1e6;

let x: OfficialX402;
let hostile: Hostile402;
let server: TestServer;

beforeAll(async () => {
  x = await startOfficialX402({ slowMs: 11_000 });
  await x.mint(TREASURY, "100");
  hostile = startHostile402();
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
});
afterAll(async () => {
  await server?.close();
  hostile?.stop();
  await x?.stop();
});

const pay = (agent: Agent, body: Record<string, unknown>, headers: Record<string, string> = {}) => server.request("POST", "/x402/pay", { key: agent.apiKey, body, headers });
const payment = async (agent: Agent, id: string) => (await server.request("GET", `/x402/payments/${id}`, { key: agent.apiKey })).body;
async function funded(amount = 10): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}
const history = async (agent: Agent) => (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data.map((entry: { type: string }) => entry.type);
/** Mines a block and lets the service's jobs (chain watcher, x402 resolver) run. */
async function settleJobs(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}

/** The attacker's move: settle a captured authorization on chain by itself, long after the service saw the answer. */
const settleCaptured = (captured: { payload: { signature: Hex; authorization: Record<string, string> } }) => x.submitAuthorization(captured.payload);

describe("official servers", () => {
  test("v1 (x402-express): paid, SETTLED at once; the merchant received exactly what the agent was charged", async () => {
    const agent = await funded();
    const before = await x.balanceOf(x.payTo);
    const reply = await pay(agent, { url: `${x.v1Url}/paid`, maxAmount: 1 });
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toMatchObject({ status: 200, body: { data: "v1 paid content" } });
    expect(reply.body.payment).toMatchObject({ amount: PRICE, currency: "USDC", payTo: x.payTo, status: "SETTLED", x402Version: 1, network: "base-sepolia", internalAgentId: null, error: null });
    expect(reply.body.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x.balanceOf(x.payTo)) - before).toBe(PRICE_UNITS);
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    expect((await server.request("GET", `/agents/${agent.id}/reputation`)).body.score).toBe(1);
    await settleJobs();
    expect(await payment(agent, reply.body.payment.id)).toMatchObject({ status: "SETTLED", transaction: reply.body.payment.transaction });
    await expectLedgerOk(server);
  });

  test("v2 (@x402/express): the payment-identifier echo the official server checks is accepted, on /paid and /id-required", async () => {
    const agent = await funded();
    for (const path of ["/paid", "/id-required"]) {
      const reply = await pay(agent, { url: `${x.v2Url}${path}`, maxAmount: 1 });
      expect(reply.body.payment).toMatchObject({ status: "SETTLED", x402Version: 2, network: "eip155:84532", error: null });
      expect(reply.body.resource.status).toBe(200);
      expect(x.paymentIdentifiers).toContain(reply.body.payment.id);
    }
    expect(await server.balance(agent)).toEqual({ available: 10 - 2 * PRICE, held: 0 });
    await expectLedgerOk(server);
  });

  test("upfront flow: settled before the handler answers 500 → SETTLED, never refunded (v1 and v2)", async () => {
    const agent = await funded();
    for (const base of [x.v1Url, x.v2Url]) {
      const reply = await pay(agent, { url: `${base}/upfront`, maxAmount: 1 });
      expect(reply.body.resource.status).toBe(500);
      expect(reply.body.payment).toMatchObject({ status: "SETTLED", resourceStatus: 500 });
    }
    await settleJobs();
    expect(await server.balance(agent)).toEqual({ available: 10 - 2 * PRICE, held: 0 });
    expect(await history(agent)).not.toContain("X402_REFUND");
    await expectLedgerOk(server);
  });

  test("the server settles, then answers after the 10 s timeout: SETTLED from the chain, not refunded", async () => {
    const agent = await funded();
    const reply = await pay(agent, { url: `${x.v1Url}/slow`, maxAmount: 1 });
    expect(reply.body.resource).toBeNull();
    expect(reply.body.payment).toMatchObject({ status: "SETTLED" });
    expect(reply.body.payment.error).toContain("did not answer within 10 s");
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    await expectLedgerOk(server);
  }, 30_000);
});

describe("attacks", () => {
  test("negative, zero, fractional, exponent and huge prices, another asset or network: 400 before any debit or signature", async () => {
    const agent = await funded();
    for (const version of [1, 2]) {
      for (const name of Object.keys(HOSTILE_CASES)) {
        const reply = await pay(agent, { url: `${hostile.url}/v${version}/${name}`, maxAmount: 1e9 });
        expect([version, name, reply.status, reply.body.error]).toEqual([version, name, 400, "VALIDATION_ERROR"]);
        expect(reply.body.message).toContain("no payment the service can make");
        expect(reply.body.message).toContain(name === "wrong-asset" ? "asset" : name === "wrong-network" ? "network" : "positive whole number");
      }
    }
    expect(hostile.payments).toEqual([]);
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect((await server.request("GET", "/x402/payments", { key: agent.apiKey })).body.pagination.total).toBe(0);
    await expectLedgerOk(server);
  });

  test("500 without settlement: PENDING, not refunded on the resource's word; a captured authorization settled later is charged once", async () => {
    const agent = await funded();
    const failed = await pay(agent, { url: `${x.v1Url}/fail`, maxAmount: 1 });
    expect(failed.body.resource.status).toBe(500);
    expect(failed.body.payment).toMatchObject({ status: "PENDING", resourceStatus: 500, error: "the resource answered 500" });
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    await settleJobs();
    expect((await payment(agent, failed.body.payment.id)).status).toBe("PENDING");

    // The raw server keeps the authorization and settles it itself, after answering.
    const captured = await pay(agent, { url: `${hostile.url}/v1/amount/${PRICE_UNITS}`, maxAmount: 1 });
    expect(captured.body.payment).toMatchObject({ status: "PENDING", error: null });
    const header = hostile.payments.at(-1)!.decoded as { payload: { signature: Hex; authorization: Record<string, string> } };
    const before = await x.balanceOf(hostile.payTo as Address);
    expect(await settleCaptured(header)).toBe("success");
    await settleJobs();
    const settled = await payment(agent, captured.body.payment.id);
    expect(settled).toMatchObject({ status: "SETTLED" });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x.balanceOf(hostile.payTo as Address)) - before).toBe(PRICE_UNITS);
    expect(await server.balance(agent)).toEqual({ available: 10 - 2 * PRICE, held: 0 });
    expect((await financialNotifications(server, agent, "x402.settled")).map((data) => data.x402PaymentId)).toContain(captured.body.payment.id);
    await expectLedgerOk(server);
  });

  test("a retry with the same Idempotency-Key after a failure replays it and pays nothing more; another body is 409", async () => {
    const agent = await funded();
    const key = { "idempotency-key": "x402-retry" };
    const first = await pay(agent, { url: `${x.v2Url}/fail`, maxAmount: 1 }, key);
    expect(first.body.payment.status).toBe("PENDING");
    const verifies = x.facilitatorCalls.length;
    // A model regenerating the call may order the fields differently: still the same request.
    const again = await pay(agent, { maxAmount: 1, url: `${x.v2Url}/fail` }, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.payment.id).toBe(first.body.payment.id);
    expect(x.facilitatorCalls.length).toBe(verifies);
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    const other = await pay(agent, { url: `${x.v2Url}/paid`, maxAmount: 1 }, key);
    expect([other.status, other.body.error]).toEqual([409, "IDEMPOTENCY_KEY_REUSED"]);
    await expectLedgerOk(server);
  });

  test("x402 to the deposit address of an agent that blocked the payer is 403; otherwise only agentbank's facilitator settles it to that agent, once (custody.test.ts: or it is refunded)", async () => {
    const payer = await funded();
    const payee = await server.register();
    const toPayee = startHostile402({ payTo: payee.registration.wallet.address });
    try {
      await block(server, payee, payer);
      const refused = await pay(payer, { url: `${toPayee.url}/v2/amount/${PRICE_UNITS}`, maxAmount: 1 });
      expect([refused.status, refused.body.error]).toEqual([403, "FORBIDDEN"]);
      expect(toPayee.payments).toEqual([]);
      expect(await server.balance(payer)).toEqual({ available: 10, held: 0 });
      await server.request("DELETE", `/agents/me/block/${payer.id}`, { key: payee.apiKey });

      const treasuryBefore = await x.balanceOf(TREASURY);
      const reply = await pay(payer, { url: `${toPayee.url}/v2/amount/${PRICE_UNITS}`, maxAmount: 1 });
      expect(reply.body.payment).toMatchObject({ status: "PENDING", internalAgentId: payee.id });
      const captured = toPayee.payments[0]!.decoded as { accepted: unknown; payload: { signature: Hex; authorization: Record<string, string> } };
      // Signed by the internal settlement signer, which holds no USDC: on chain it moves nothing.
      expect(captured.payload.authorization.from).toBe(INTERNAL_SIGNER);
      expect(await settleCaptured(captured)).toBe("reverted");
      await settleJobs();
      expect(await x.balanceOf(TREASURY)).toBe(treasuryBefore);
      expect((await payment(payer, reply.body.payment.id)).status).toBe("PENDING");
      // The payee's resource settles it through agentbank's facilitator: in the ledger, once.
      const sale = { x402Version: 2, paymentPayload: captured, paymentRequirements: captured.accepted };
      const settled = await server.request("POST", "/x402/facilitator/settle", { key: payee.apiKey, body: sale });
      expect(settled.body).toMatchObject({ success: true, transaction: "", payer: INTERNAL_SIGNER });
      await settleJobs();
      expect(await payment(payer, reply.body.payment.id)).toMatchObject({ status: "SETTLED", transaction: null });
      expect(await server.balance(payee)).toEqual({ available: PRICE, held: 0 });
      expect(await financialNotifications(server, payee, "x402.sale")).toHaveLength(1);
      expect(await financialNotifications(server, payee, "deposit.credited")).toHaveLength(0);

      expect(await x.balanceOf(TREASURY)).toBe(treasuryBefore);
      await expectLedgerOk(server);
    } finally {
      toPayee.stop();
    }
  });

  test("a resource that does not ask for payment is returned as is; a 402 without requirements is 400", async () => {
    const agent = await funded();
    const free = await pay(agent, { url: `${hostile.url}/nothing-here`, maxAmount: 1 });
    expect(free.body).toEqual({ payment: null, resource: expect.objectContaining({ status: 404, body: { error: "not found" } }) });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
  });

  test("bad input is 400 and debits nothing; a private URL is refused without the flag", async () => {
    const agent = await funded();
    for (const body of [{ url: "not a url", maxAmount: 1 }, { url: `${x.v1Url}/paid` }, { url: `${x.v1Url}/paid`, maxAmount: 0 }, { url: `${x.v1Url}/paid`, maxAmount: -1 }, { url: `${x.v1Url}/paid`, maxAmount: 1.0000001 }, { url: `${x.v1Url}/paid`, maxAmount: 1, method: "TRACE" }, { url: "ftp://x/y", maxAmount: 1 }, { url: `${x.v1Url}/paid`, maxAmount: 0.001 }]) {
      const reply = await pay(agent, body);
      expect([JSON.stringify(body), reply.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    const strict = await startServer({ env: { CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC } });
    try {
      const other = await strict.register();
      await strict.deposit(other.id, 5);
      for (const url of [`${x.v1Url}/paid`, "http://[::ffff:127.0.0.1]:9/", "http://[::127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[fec0::1]/", "http://169.254.169.254/latest/meta-data/"]) {
        const refused = await strict.request("POST", "/x402/pay", { key: other.apiKey, body: { url, maxAmount: 1 } });
        expect([url, refused.status]).toEqual([url, 400]);
        expect(refused.body.message).toContain("non-public");
      }
      expect(await strict.balance(other)).toEqual({ available: 5, held: 0 });
    } finally {
      await strict.close();
    }
  });
});

describe("when the chain decides", () => {
  test("the official server's rejection reason is kept; PENDING payments are REFUNDED once their authorization expired unused", async () => {
    const agent = await funded();
    const pendingBefore = (await server.request("GET", "/x402/payments?limit=100", { key: agent.apiKey })).body.data;
    expect(pendingBefore).toEqual([]);
    // The treasury cannot cover the payment: the official facilitator refuses to verify it.
    const treasuryUsdc = await x.balanceOf(TREASURY);
    const operator = createWalletClient({ chain: x.anvil.chain, transport: http(x.anvil.rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 0 }) });
    const parked = testActor(3).address;
    const move = async (to: Address, amount: bigint, from = operator) =>
      x.anvil.receipt(await from.writeContract({ address: x.usdc, abi: contracts.TestUSDC.abi as Abi, functionName: "transfer", args: [to, amount] }));
    const out = await move(parked, treasuryUsdc);
    const rejected = await pay(agent, { url: `${x.v2Url}/paid`, maxAmount: 1 });
    expect(rejected.body.payment.status).toBe("PENDING");
    expect(rejected.body.payment.error).toMatch(/refused the payment \(402\): .*insufficient/i);
    const back = await move(TREASURY, treasuryUsdc, createWalletClient({ chain: x.anvil.chain, transport: http(x.anvil.rpcUrl), account: testActor(3) }));
    expect(back.status).toBe("success");

    const open = (await server.request("GET", "/x402/payments?limit=100", { key: agent.apiKey })).body.data.filter((p: { status: string }) => p.status === "PENDING");
    expect(open).toHaveLength(1);
    // Chain time passes the authorization's validBefore (at most 120 s ahead), in confirmed blocks.
    await x.anvil.client.request({ method: "evm_increaseTime" as never, params: [200] as never });
    await settleJobs();
    await settleJobs();
    const refunded = await payment(agent, rejected.body.payment.id);
    expect(refunded).toMatchObject({ status: "REFUNDED" });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect(await history(agent)).toEqual(["X402_REFUND", "X402_PAYMENT", "DEPOSIT"]);
    expect((await financialNotifications(server, agent, "x402.refunded"))[0]).toMatchObject({ x402PaymentId: rejected.body.payment.id, reason: "the authorization expired without being used" });

    // Every payment of the file is decided; the operator explains the treasury's round trip by hand.
    const check = await server.ledgerCheck();
    expect(check.inFlight).toMatchObject({ ok: true, x402: { ledger: 0, openRecords: 0 } });
    expect(check.chain.unexplainedTransfers.map((t: { txHash: string }) => t.txHash)).toEqual([out.transactionHash]);
    const explained = check.chain.unexplainedTransfers[0];
    expect((await server.admin("POST", "/admin/chain/acknowledge", { txHash: explained.txHash, logIndex: explained.logIndex, reason: "parked and returned by the operator" })).status).toBe(200);
    const reconciled = (await server.ledgerCheck()).chain;
    // The treasury paid on chain exactly what agents were charged.
    expect(reconciled).toMatchObject({ status: "ok", difference: 0, missingTransfers: [], unexplainedTransfers: [] });
    expect(reconciled.onchainBalance).toBe(Number(await x.balanceOf(TREASURY)) / 1e6);
    await expectLedgerOk(server);
  });
});
