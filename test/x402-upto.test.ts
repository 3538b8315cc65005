// POST /x402/pay against the official upto seller (test/x402/official.ts: @x402/express with @x402/evm's
// upto scheme, the official facilitator, the real Permit2 and the upto proxy stand-in on anvil): the
// treasury approves Permit2 once, signs a permit for the seller's maximum, the agent's maximum is held
// while PENDING, and only what the chain shows the proxy moved is charged, the rest released. Replays,
// parallel pays, an expired permit and a settled amount above the maximum move nothing extra; an owner's
// approval binds the maximum.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress, type Abi } from "viem";
import contracts from "./chain/contracts.json";
import { TEST_MNEMONIC } from "./chain/anvil";
import { PERMIT2 } from "./chain/permit2";
import { startOfficialX402, UPTO_MAX_UNITS, type OfficialX402 } from "./x402/official";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const MAXIMUM = Number(UPTO_MAX_UNITS) / 1e6;
const units = (n: bigint) => Number(n) / 1e6;
/** The agent's available USDC after paying `paid` units out of `start` USDC (in units: no float drift). */
const left = (start: number, paid: bigint) => units(BigInt(start * 1e6) - paid);

let x: OfficialX402;
let server: TestServer;
/** The payment headers agentbank sent to the seller (through `proxyUrl`), in order. */
const sent: string[] = [];
let proxy: ReturnType<typeof Bun.serve>;
let proxyUrl: string;
/** A seller that asks for upto and answers with a payment response of its own invention, settling nothing. */
let liar: ReturnType<typeof Bun.serve>;
let liarClaim: Record<string, unknown> = {};

beforeAll(async () => {
  x = await startOfficialX402();
  await x.mint(TREASURY, "100");
  // Forwards to the official seller and records each PAYMENT-SIGNATURE header.
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const header = request.headers.get("payment-signature");
      if (header) sent.push(header);
      const url = new URL(request.url);
      const answer = await fetch(`${x.uptoUrl}${url.pathname}${url.search}`, { headers: request.headers });
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
    },
  });
  proxyUrl = `http://127.0.0.1:${proxy.port}`;
  liar = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      if (request.headers.get("payment-signature")) {
        return Response.json({ charged: "all" }, { headers: { "payment-response": Buffer.from(JSON.stringify(liarClaim)).toString("base64") } });
      }
      const required = {
        x402Version: 2,
        resource: { url: request.url },
        accepts: [
          {
            scheme: "upto",
            network: x.network.v2,
            amount: String(UPTO_MAX_UNITS),
            asset: x.usdc,
            payTo: x.uptoPayTo,
            maxTimeoutSeconds: 60,
            extra: { name: "USDC", version: "2", assetTransferMethod: "permit2", facilitatorAddress: x.facilitatorAddress },
          },
        ],
      };
      return new Response("{}", { status: 402, headers: { "payment-required": Buffer.from(JSON.stringify(required)).toString("base64") } });
    },
  });
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  proxy?.stop(true);
  liar?.stop(true);
  await x?.stop();
});

const pay = (agent: Agent, charge: bigint | null, headers: Record<string, string> = {}, maxAmount = 1) =>
  server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${proxyUrl}/metered${charge === null ? "" : `?charge=${charge}`}`, maxAmount }, headers });
const payment = async (agent: Agent, id: string) => (await server.request("GET", `/x402/payments/${id}`, { key: agent.apiKey })).body;
async function funded(amount = 10): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}
/** Mines a block and lets the service's jobs (chain watcher, x402 resolver) run. */
async function settleJobs(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}
const usdcAbi = contracts.TestUSDC.abi as Abi;
/** The treasury's USDC approvals of Permit2, as the chain logged them. */
const treasuryApprovals = () => x.anvil.client.getContractEvents({ address: x.usdc, abi: usdcAbi, eventName: "Approval", args: { owner: TREASURY, spender: PERMIT2 }, fromBlock: 0n });
const transfers = () => x.transfersTo(x.uptoPayTo);
const decode = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));

describe("the official upto seller, paid by POST /x402/pay", () => {
  test("charged 12345 of 50000 units: the treasury approves Permit2 once, one Transfer, the agent pays exactly what settled", async () => {
    expect(await treasuryApprovals()).toHaveLength(0);
    const agent = await funded();
    const charge = 12_345n;
    const before = await transfers();
    const reply = await pay(agent, charge);
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toMatchObject({ status: 200, body: { charged: String(charge) } });
    expect(reply.body.payment).toMatchObject({ scheme: "upto", amount: MAXIMUM, settledAmount: units(charge), status: "SETTLED", payTo: x.uptoPayTo, x402Version: 2, error: null });
    const after = await transfers();
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ from: TREASURY, to: x.uptoPayTo, value: charge, transactionHash: reply.body.payment.transaction });
    expect(await server.balance(agent)).toEqual({ available: left(10, charge), held: 0 });

    // What was signed is the official client's permit: the maximum, the upto proxy, the seller's facilitator.
    const permit = decode(sent.at(-1)!).payload.permit2Authorization;
    expect(permit).toMatchObject({ from: TREASURY, spender: x.uptoProxy, permitted: { amount: String(UPTO_MAX_UNITS) }, witness: { to: x.uptoPayTo, facilitator: x.facilitatorAddress, validAfter: "0" } });
    expect(await x.permit2NonceUsed(TREASURY, permit.nonce)).toBe(true);
    expect(await treasuryApprovals()).toHaveLength(1);

    // A second payment needs no second approval.
    const second = await pay(agent, 1n);
    expect(second.body.payment).toMatchObject({ status: "SETTLED", settledAmount: units(1n) });
    expect(await treasuryApprovals()).toHaveLength(1);
    expect(await server.balance(agent)).toEqual({ available: left(10, charge + 1n), held: 0 });
    await settleJobs();
    expect(await payment(agent, reply.body.payment.id)).toMatchObject({ status: "SETTLED", settledAmount: units(charge), transaction: reply.body.payment.transaction });
    // The chain reconciliation matches each settlement's transfer (nothing unexplained or missing).
    expect((await server.ledgerCheck()).chain).toMatchObject({ status: "ok", unexplainedTransfers: [], missingTransfers: [] });
    await expectLedgerOk(server);
  });

  test("replays: the same Idempotency-Key answers the same payment; the payment header resent moves nothing", async () => {
    const agent = await funded();
    const key = { "idempotency-key": "upto-once" };
    const first = await pay(agent, 20_000n, key);
    expect(first.body.payment).toMatchObject({ status: "SETTLED", settledAmount: 0.02 });
    const count = (await transfers()).length;
    const again = await pay(agent, 20_000n, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.payment.id).toBe(first.body.payment.id);
    const resent = await fetch(`${x.uptoUrl}/metered?charge=20000`, { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
    expect(resent.status).toBe(402);
    await settleJobs();
    expect((await transfers()).length).toBe(count);
    expect(await server.balance(agent)).toEqual({ available: left(10, 20_000n), held: 0 });
    await expectLedgerOk(server);
  });

  test("parallel pays: four with one Idempotency-Key make one payment; three without each pay their own charge", async () => {
    const agent = await funded();
    const count = (await transfers()).length;
    const keyed = await Promise.all([1, 2, 3, 4].map(() => pay(agent, 1_000n, { "idempotency-key": "upto-parallel" })));
    expect(new Set(keyed.map((reply) => reply.body.payment.id)).size).toBe(1);
    const free = await Promise.all([2_000n, 3_000n, 4_000n].map((charge) => pay(agent, charge)));
    expect(free.map((reply) => reply.body.payment.status)).toEqual(["SETTLED", "SETTLED", "SETTLED"]);
    await settleJobs();
    expect((await transfers()).length - count).toBe(4);
    expect(await server.balance(agent)).toEqual({ available: left(10, 10_000n), held: 0 });
    await expectLedgerOk(server);
  });

  test("a held payment (owner approval) binds the maximum; approved, it charges what settled", async () => {
    const agent = await funded();
    await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { approvalAbove: { USDC: 0.01 } } });
    const held = await pay(agent, 5_000n);
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", kind: "X402", amount: MAXIMUM });
    expect(await server.balance(agent)).toEqual({ available: left(10, UPTO_MAX_UNITS), held: MAXIMUM });
    const approved = await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.ownerKey });
    expect(approved.body).toMatchObject({ status: "APPROVED", kind: "X402", result: { payment: { scheme: "upto", status: "SETTLED", settledAmount: 0.005 } } });
    expect(await server.balance(agent)).toEqual({ available: left(10, 5_000n), held: 0 });
    await settleJobs();
    await expectLedgerOk(server);
  });

  test("a restricted key's budget and a freeze apply to the maximum: refused before any permit leaves", async () => {
    const agent = await funded();
    const made = async (total: number) => (await server.request("POST", "/agents/me/keys", { key: agent.apiKey, body: { name: "metered", scopes: ["x402", "read"], budgets: { USDC: { total } } } })).body;
    const payWith = (apiKey: string) => server.request("POST", "/x402/pay", { key: apiKey, body: { url: `${proxyUrl}/metered?charge=1000`, maxAmount: 1 } });
    const headers = sent.length;
    const small = await made(0.04);
    const refused = await payWith(small.apiKey);
    expect([refused.status, refused.body.error]).toEqual([403, "KEY_BUDGET_EXCEEDED"]);
    // Within the budget, the key is charged the maximum it authorized; the agent what settled.
    const large = await made(0.1);
    const paid = await payWith(large.apiKey);
    expect(paid.body.payment).toMatchObject({ status: "SETTLED", settledAmount: 0.001 });
    const keys = (await server.request("GET", "/agents/me/keys", { key: agent.apiKey })).body.data as { id: string; budgets: Record<string, { spent: number }> }[];
    expect(keys.find((key) => key.id === large.id)!.budgets.USDC!.spent).toBe(MAXIMUM);
    expect(sent.length).toBe(headers + 1);
    await server.request("POST", `/owner/agents/${agent.id}/freeze`, { key: agent.ownerKey, body: { reason: "upto" } });
    const frozen = await pay(agent, 1_000n);
    expect([frozen.status, frozen.body.error]).toEqual([403, "AGENT_FROZEN"]);
    expect(sent.length).toBe(headers + 1);
    expect(await server.balance(agent)).toEqual({ available: left(10, 1_000n), held: 0 });
    await expectLedgerOk(server);
  });

  test("above the maximum: the facilitator refuses to settle it; a seller claiming it is flagged; both refunded once the permits expire", async () => {
    const agent = await funded();
    const count = (await transfers()).length;
    // The official seller asks to settle 60000 of a 50000 permit: the official facilitator refuses it.
    const over = await pay(agent, 60_000n);
    expect(over.status).toBe(200);
    expect(over.body.payment).toMatchObject({ scheme: "upto", status: "PENDING", settledAmount: null });
    // A seller that settles nothing but says it settled 60000 in an earlier settlement's transaction.
    liarClaim = { success: true, transaction: (await transfers()).at(-1)!.transactionHash, network: x.network.v2, amount: "60000", payer: TREASURY };
    const lied = await server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `http://127.0.0.1:${liar.port}/metered`, maxAmount: 1 } });
    expect(lied.body.payment).toMatchObject({ scheme: "upto", status: "PENDING" });
    expect(lied.body.payment.error).toContain("above the maximum");
    // The maxima stay held until the chain decides.
    expect(await server.balance(agent)).toEqual({ available: left(10, 2n * UPTO_MAX_UNITS), held: units(2n * UPTO_MAX_UNITS) });
    await settleJobs();
    expect(await payment(agent, lied.body.payment.id)).toMatchObject({ status: "PENDING" });

    // Past both deadlines (chain time), in a confirmed block: refunded, nothing moved.
    await x.anvil.client.request({ method: "evm_increaseTime" as never, params: [180] as never });
    await settleJobs();
    await settleJobs();
    expect(await payment(agent, over.body.payment.id)).toMatchObject({ status: "REFUNDED", settledAmount: null });
    const refunded = await payment(agent, lied.body.payment.id);
    expect(refunded).toMatchObject({ status: "REFUNDED" });
    expect(refunded.error).toContain("above the maximum");
    expect(refunded.error).toContain("the chain shows the permit never used");
    expect((await transfers()).length).toBe(count);
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    await expectLedgerOk(server);
  });
});
