// Control for test/x402/official.ts: the official clients (x402-fetch for v1, @x402/fetch with @x402/evm's
// exact client scheme for v2) pay the official servers, so a failure of agentbank against the same servers
// is agentbank's, not the harness's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { decodePaymentResponseHeader, wrapFetchWithPayment as wrapFetchV2, x402Client } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { PRICE_UNITS, startHostile402, startOfficialX402, type Hostile402, type OfficialX402 } from "./x402/official";

let x402: OfficialX402;
let hostile: Hostile402;
const payer = privateKeyToAccount(generatePrivateKey());
/** The payment headers the clients sent, decoded, in order. */
const sent: { x402Version: number; payload: { authorization: { nonce: Hex; from: Address } }; extensions?: Record<string, unknown> }[] = [];

/** fetch that remembers the payment header of each request. */
const recordingFetch = (async (input: Request | string | URL, init?: RequestInit) => {
  const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
  const header = request.headers.get("x-payment") ?? request.headers.get("payment-signature");
  if (header) sent.push(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
  return fetch(request);
}) as typeof fetch;

let fetchV1: typeof fetch;
let client: x402Client;
let fetchV2: typeof fetch;

beforeAll(async () => {
  x402 = await startOfficialX402({ slowMs: 1_500 });
  hostile = startHostile402();
  await x402.mint(payer.address, "1");
  const wallet = createWalletClient({ account: payer, chain: x402.anvil.chain, transport: http(x402.anvil.rpcUrl) });
  fetchV1 = wrapFetchV1(recordingFetch, wallet as never) as typeof fetch;
  // The documented client side of payment-identifier: add an id to the server's declaration before signing.
  client = new x402Client()
    .register(x402.network.v2, new ExactEvmScheme(toClientEvmSigner(payer)))
    .onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {});
    });
  fetchV2 = wrapFetchV2(recordingFetch, client) as typeof fetch;
});
afterAll(async () => {
  hostile?.stop();
  await x402?.stop();
});

const lastNonce = () => sent.at(-1)!.payload.authorization.nonce;

describe("official x402 peers, paid by the official clients", () => {
  test("v1 /paid: 200, X-PAYMENT-RESPONSE success with a tx hash, exactly 0.01 USDC moved, nonce used", async () => {
    const before = await x402.balanceOf(x402.payTo);
    const response = await fetchV1(`${x402.v1Url}/paid`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: "v1 paid content" });
    const settlement = decodeXPaymentResponse(response.headers.get("x-payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: "base-sepolia", payer: payer.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x402.balanceOf(x402.payTo)) - before).toBe(PRICE_UNITS);
    expect(PRICE_UNITS).toBe(10_000n);
    expect(sent.at(-1)!.x402Version).toBe(1);
    expect(await x402.authorizationState(payer.address, lastNonce())).toBe(true);
  });

  test("v2 /paid: 200, PAYMENT-RESPONSE success with a tx hash, exactly 0.01 USDC moved, nonce used, payment id seen", async () => {
    const before = await x402.balanceOf(x402.payTo);
    const response = await fetchV2(`${x402.v2Url}/paid`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: "v2 paid content" });
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x402.balanceOf(x402.payTo)) - before).toBe(PRICE_UNITS);
    expect(await x402.authorizationState(payer.address, lastNonce())).toBe(true);
    // The echo the official client sends: the declaration (info.required, schema) plus info.id.
    const echoed = sent.at(-1)!.extensions?.["payment-identifier"] as { info: { required: boolean; id: string }; schema: unknown };
    expect(echoed.info.required).toBe(false);
    expect(echoed.info.id).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(x402.paymentIdentifiers).toContain(echoed.info.id);
  });

  test("v2: the same PAYMENT-SIGNATURE again is refused as a used nonce (the facilitator's Multicall3 diagnosis)", async () => {
    const response = await fetchV2(`${x402.v2Url}/paid`);
    expect(response.status).toBe(200);
    const header = Buffer.from(JSON.stringify(sent.at(-1))).toString("base64");
    const before = await x402.balanceOf(x402.payTo);
    const replay = await fetch(`${x402.v2Url}/paid`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(replay.status).toBe(402);
    const required = JSON.parse(Buffer.from(replay.headers.get("payment-required")!, "base64").toString("utf8"));
    expect(required.error).toBe("invalid_exact_evm_nonce_already_used");
    expect(await x402.balanceOf(x402.payTo)).toBe(before);
  });

  test("v1 /upfront: 500 with X-PAYMENT-RESPONSE, the money moved", async () => {
    const before = await x402.balanceOf(x402.payTo);
    const response = await fetchV1(`${x402.v1Url}/upfront`);
    expect(response.status).toBe(500);
    const settlement = decodeXPaymentResponse(response.headers.get("x-payment-response")!);
    expect(settlement).toMatchObject({ success: true });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x402.balanceOf(x402.payTo)) - before).toBe(PRICE_UNITS);
    expect(await x402.authorizationState(payer.address, lastNonce())).toBe(true);
  });

  test("v2 /upfront: 500 with PAYMENT-RESPONSE, the money moved (paymentFlow upfront advertised)", async () => {
    const before = await x402.balanceOf(x402.payTo);
    const response = await fetchV2(`${x402.v2Url}/upfront`);
    expect(response.status).toBe(500);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await x402.balanceOf(x402.payTo)) - before).toBe(PRICE_UNITS);
    expect(await x402.authorizationState(payer.address, lastNonce())).toBe(true);
    expect((sent.at(-1) as unknown as { accepted: { extra: Record<string, unknown> } }).accepted.extra).toMatchObject({ paymentFlow: "upfront" });
  });

  for (const version of [1, 2] as const) {
    test(`v${version} /fail: 500, no settlement header, no money moved, nonce unused`, async () => {
      const before = await x402.balanceOf(x402.payTo);
      const response = await (version === 1 ? fetchV1 : fetchV2)(`${version === 1 ? x402.v1Url : x402.v2Url}/fail`);
      expect(response.status).toBe(500);
      expect(response.headers.get("x-payment-response")).toBeNull();
      expect(response.headers.get("payment-response")).toBeNull();
      expect(await x402.balanceOf(x402.payTo)).toBe(before);
      expect(sent.at(-1)!.x402Version).toBe(version);
      expect(await x402.authorizationState(payer.address, lastNonce())).toBe(false);
    });

    test(`v${version} /slow: settled before the (delayed) answer`, async () => {
      const before = await x402.balanceOf(x402.payTo);
      const started = Date.now();
      const pending = (version === 1 ? fetchV1 : fetchV2)(`${version === 1 ? x402.v1Url : x402.v2Url}/slow`);
      // Money moves while the answer is still held back.
      for (let i = 0; i < 40 && (await x402.balanceOf(x402.payTo)) === before; i++) await Bun.sleep(25);
      expect((await x402.balanceOf(x402.payTo)) - before).toBe(PRICE_UNITS);
      const response = await pending;
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
      expect(response.headers.get(version === 1 ? "x-payment-response" : "payment-response")).toBeTruthy();
    });
  }

  test("v2: an echo of payment-identifier without the advertised `required` is refused (402 extension_echo_mismatch), nothing moves", async () => {
    const probe = new x402Client().register(x402.network.v2, new ExactEvmScheme(toClientEvmSigner(payer)));
    probe.onAfterPaymentCreation(async ({ paymentPayload }) => {
      paymentPayload.extensions = { "payment-identifier": { info: { id: "pay_0123456789abcdef0123" } } };
    });
    const before = await x402.balanceOf(x402.payTo);
    const response = await wrapFetchV2(recordingFetch, probe)(`${x402.v2Url}/paid`);
    expect(response.status).toBe(402);
    const required = JSON.parse(Buffer.from(response.headers.get("payment-required")!, "base64").toString("utf8"));
    expect(required.error).toBe("extension_echo_mismatch");
    expect(await x402.balanceOf(x402.payTo)).toBe(before);
  });

  test("v2 /id-required: without an id, 402; with one, paid", async () => {
    const bare = new x402Client().register(x402.network.v2, new ExactEvmScheme(toClientEvmSigner(payer)));
    const refused = await wrapFetchV2(recordingFetch, bare)(`${x402.v2Url}/id-required`);
    expect(refused.status).toBe(402);
    expect(JSON.parse(Buffer.from(refused.headers.get("payment-required")!, "base64").toString("utf8")).error).toBe("payment_identifier_required");
    const paid = await fetchV2(`${x402.v2Url}/id-required`);
    expect(paid.status).toBe(200);
  });

  test("the hostile server answers 402 with the crafted requirements", async () => {
    const v1 = await fetch(`${hostile.url}/v1/negative`);
    expect(v1.status).toBe(402);
    expect(((await v1.json()) as { accepts: unknown[] }).accepts[0]).toMatchObject({ maxAmountRequired: "-5000000", network: "base-sepolia" });
    const v2 = await fetch(`${hostile.url}/v2/wrong-network`);
    expect(v2.status).toBe(402);
    const required = JSON.parse(Buffer.from(v2.headers.get("payment-required")!, "base64").toString("utf8"));
    expect(required.accepts[0]).toMatchObject({ amount: "10000", network: "eip155:8453" });
    const any = await fetch(`${hostile.url}/v2/amount/${encodeURIComponent("0x10")}`);
    expect(JSON.parse(Buffer.from(any.headers.get("payment-required")!, "base64").toString("utf8")).accepts[0].amount).toBe("0x10");
    expect(hostile.payments).toEqual([]);
  });
});
