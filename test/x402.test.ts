// x402 against a real resource server in the test: it verifies the EIP-3009 signature with viem and
// settles it on anvil (transferWithAuthorization), for protocol v1 and v2.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, getAddress, http, parseSignature, verifyTypedData, type Abi, type Address, type Hex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../src/chain/eip3009";
import contracts from "./chain/contracts.json";
import { startAnvil, TEST_MNEMONIC, type Anvil } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const merchant = privateKeyToAccount(generatePrivateKey()).address;
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const decode = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));

let anvil: Anvil;
let server: TestServer;
let resource: ReturnType<typeof Bun.serve>;
let internalPayTo: Address = merchant;
const paymentIdentifiers: string[] = [];


/** Verifies the authorization like a facilitator would, then settles it on chain. */
async function verifyAndSettle(payload: { signature: Hex; authorization: Record<string, string> }, payTo: Address, amount: bigint): Promise<Hex> {
  const { authorization, signature } = payload;
  const message = {
    from: authorization.from as Address,
    to: authorization.to as Address,
    value: BigInt(authorization.value!),
    validAfter: BigInt(authorization.validAfter!),
    validBefore: BigInt(authorization.validBefore!),
    nonce: authorization.nonce as Hex,
  };
  const valid = await verifyTypedData({
    address: message.from,
    domain: { name: "USD Coin", version: "2", chainId: anvil.chainId, verifyingContract: anvil.usdc },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message,
    signature,
  });
  if (!valid || getAddress(message.to) !== getAddress(payTo) || message.value < amount) throw new Error("invalid payment");
  const { r, s, v } = parseSignature(signature);
  const facilitator = createWalletClient({ chain: { ...anvilChain, rpcUrls: { default: { http: [anvil.rpcUrl] } } }, transport: http(anvil.rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 2 }) });
  const hash = await facilitator.writeContract({
    address: anvil.usdc,
    abi: contracts.TestUSDC.abi as Abi,
    functionName: "transferWithAuthorization",
    args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s],
  });
  const receipt = await anvil.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error("settlement reverted");
  return hash;
}

function requirementV1(amount: bigint, payTo: Address, url: string) {
  return { scheme: "exact", network: "anvil", maxAmountRequired: String(amount), resource: url, description: "data", mimeType: "application/json", payTo, maxTimeoutSeconds: 60, asset: anvil.usdc, extra: { name: "USD Coin", version: "2" } };
}
function requirementV2(amount: bigint, payTo: Address) {
  return { scheme: "exact", network: `eip155:${anvil.chainId}`, amount: String(amount), asset: anvil.usdc, payTo, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } };
}

async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === "/free") return Response.json({ free: true });
  const amount = path === "/expensive" ? 5_000_000n : path === "/v2" ? 500_000n : 250_000n;
  const payTo = path === "/internal" ? internalPayTo : merchant;
  if (path === "/v2") {
    const header = request.headers.get("payment-signature");
    if (!header) {
      const required = { x402Version: 2, error: "payment required", resource: { url: request.url }, accepts: [requirementV2(amount, payTo)], extensions: { "payment-identifier": { info: { required: false } } } };
      return new Response(null, { status: 402, headers: { "PAYMENT-REQUIRED": encode(required) } });
    }
    const payment = decode(header);
    const id = payment.extensions?.["payment-identifier"]?.info?.id;
    if (id) paymentIdentifiers.push(id);
    const hash = await verifyAndSettle(payment.payload, payTo, amount);
    return Response.json({ data: "v2 secret" }, { headers: { "PAYMENT-RESPONSE": encode({ success: true, transaction: hash, network: `eip155:${anvil.chainId}` }) } });
  }
  const header = request.headers.get("x-payment");
  if (!header) return Response.json({ x402Version: 1, error: "X-PAYMENT header is required", accepts: [requirementV1(amount, payTo, request.url)] }, { status: 402 });
  if (path === "/broken") return new Response("upstream failed", { status: 500 });
  const hash = await verifyAndSettle(decode(header).payload, payTo, amount);
  return Response.json({ data: "v1 secret", method: request.method, echoed: request.method === "POST" ? await request.json() : null }, { headers: { "X-PAYMENT-RESPONSE": encode({ success: true, transaction: hash, network: "anvil" }) } });
}

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.mint(TREASURY, "100");
  resource = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handle });
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
});
afterAll(async () => {
  await server.close();
  resource.stop(true);
  anvil.stop();
});

const at = (path: string) => `http://127.0.0.1:${resource.port}${path}`;
const pay = (agent: Agent, body: Record<string, unknown>, headers: Record<string, string> = {}) => server.request("POST", "/x402/pay", { key: agent.apiKey, body, headers });
async function funded(amount = 10): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}

describe("x402", () => {
  test("v1: pays 0.25 USDC, gets the resource, settles on chain and in the ledger", async () => {
    const agent = await funded();
    const before = await anvil.balanceOf(merchant);
    const reply = await pay(agent, { url: at("/v1"), method: "POST", body: { q: 1 }, maxAmount: 1 });
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toMatchObject({ status: 200, body: { data: "v1 secret", method: "POST", echoed: { q: 1 } } });
    expect(reply.body.payment).toMatchObject({ amount: 0.25, currency: "USDC", payTo: merchant, status: "SETTLED", x402Version: 1, network: "anvil", internalAgentId: null });
    expect(reply.body.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await anvil.balanceOf(merchant)) - before).toBe(250_000n);
    expect(await server.balance(agent)).toEqual({ available: 9.75, held: 0 });
    expect((await server.request("GET", `/agents/${agent.id}/reputation`)).body.score).toBe(1);
    await expectLedgerOk(server);
  });

  test("v2: PAYMENT-REQUIRED / PAYMENT-SIGNATURE / PAYMENT-RESPONSE, with the payment-identifier extension", async () => {
    const agent = await funded();
    const reply = await pay(agent, { url: at("/v2"), maxAmount: 0.5 });
    expect(reply.body.payment).toMatchObject({ amount: 0.5, status: "SETTLED", x402Version: 2, network: "eip155:31337" });
    expect(reply.body.resource.body).toEqual({ data: "v2 secret" });
    expect(paymentIdentifiers).toContain(reply.body.payment.id);
    expect(await server.balance(agent)).toEqual({ available: 9.5, held: 0 });
  });

  test("a price above maxAmount is refused with no debit", async () => {
    const agent = await funded();
    const reply = await pay(agent, { url: at("/expensive"), maxAmount: 1 });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("maxAmount");
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
  });

  test("a resource error after payment refunds the agent", async () => {
    const agent = await funded();
    const reply = await pay(agent, { url: at("/broken"), maxAmount: 1 });
    expect(reply.status).toBe(200);
    expect(reply.body.resource.status).toBe(500);
    expect(reply.body.payment).toMatchObject({ status: "REFUNDED", amount: 0.25 });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    const history = (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data.map((e: { type: string }) => e.type);
    expect(history.slice(0, 2)).toEqual(["X402_REFUND", "X402_PAYMENT"]);
    await expectLedgerOk(server);
  });

  test("payTo is another agent's deposit address: settled inside the ledger, credited once", async () => {
    const payer = await funded();
    const payee = await server.register();
    internalPayTo = payee.registration.wallet.address;
    const reply = await pay(payer, { url: at("/internal"), maxAmount: 1 });
    expect(reply.body.payment).toMatchObject({ status: "SETTLED", internalAgentId: payee.id });
    expect(await server.balance(payee)).toEqual({ available: 0.25, held: 0 });
    await anvil.mine(2);
    await server.advance(1);
    // The treasury's on-chain transfer to the payee's address is not a second deposit.
    expect(await server.balance(payee)).toEqual({ available: 0.25, held: 0 });
    await expectLedgerOk(server);
  });

  test("a free resource is returned without payment; Idempotency-Key replays one payment", async () => {
    const agent = await funded();
    const free = await pay(agent, { url: at("/free"), maxAmount: 1 });
    expect(free.body).toEqual({ payment: null, resource: expect.objectContaining({ status: 200, body: { free: true } }) });
    const first = await pay(agent, { url: at("/v1"), maxAmount: 1 }, { "idempotency-key": "x402-once" });
    const again = await pay(agent, { url: at("/v1"), maxAmount: 1 }, { "idempotency-key": "x402-once" });
    expect(again.body.payment.id).toBe(first.body.payment.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await server.balance(agent)).toEqual({ available: 9.75, held: 0 });
    expect((await pay(agent, { url: at("/v2"), maxAmount: 1 }, { "idempotency-key": "x402-once" })).status).toBe(409);
  });

  test("bad input is 400 and debits nothing; a private URL is refused without the flag", async () => {
    const agent = await funded();
    for (const body of [{ url: "not a url", maxAmount: 1 }, { url: at("/v1") }, { url: at("/v1"), maxAmount: 0 }, { url: at("/v1"), maxAmount: 1.0000001 }, { url: at("/v1"), maxAmount: 1, method: "TRACE" }, { url: "ftp://x/y", maxAmount: 1 }]) {
      expect((await pay(agent, body)).status).toBe(400);
    }
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    const strict = await startServer({ env: { CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC } });
    try {
      const other = await strict.register();
      await strict.deposit(other.id, 5);
      const refused = await strict.request("POST", "/x402/pay", { key: other.apiKey, body: { url: at("/v1"), maxAmount: 1 } });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain("private");
    } finally {
      await strict.close();
    }
  });
});
