// The upto fixture of test/x402/official.ts proven with official parts only: @x402/fetch with @x402/evm's
// upto client scheme pays the official upto seller (GET /metered) through the official facilitator, on the
// real Permit2 and the upto proxy stand-in (test/chain/permit2.ts). A failure of agentbank's upto buyer or
// facilitator against the same peers is then agentbank's, not the fixture's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { toClientEvmSigner } from "@x402/evm";
import { recordingPaymentFetch, startOfficialX402, UPTO_MAX_UNITS, type OfficialX402 } from "./x402/official";

let x402: OfficialX402;
const payer = privateKeyToAccount(generatePrivateKey());
/** The PAYMENT-SIGNATURE headers the client sent, in order. */
const sent: string[] = [];
const recordingFetch = recordingPaymentFetch(sent);
let pay: typeof fetch;

beforeAll(async () => {
  x402 = await startOfficialX402();
  await x402.mint(payer.address, "1");
  await x402.approvePermit2(payer.address);
  pay = wrapFetchWithPayment(recordingFetch, new x402Client().register(x402.network.v2, new UptoEvmScheme(toClientEvmSigner(payer)))) as typeof fetch;
});
afterAll(async () => {
  await x402?.stop();
});

const decode = (header: string) =>
  JSON.parse(Buffer.from(header, "base64").toString("utf8")) as {
    accepted: { scheme: string; amount: string; extra: Record<string, unknown> };
    payload: { permit2Authorization: { from: string; nonce: string; spender: string; permitted: { amount: string }; witness: { to: string; facilitator: string } } };
  };

describe("official upto seller, paid by the official upto client through the official facilitator", () => {
  test("the chain: Permit2 at its canonical address, the upto proxy stand-in pointing at it", async () => {
    expect(await x402.anvil.client.getCode({ address: x402.permit2 })).toMatch(/^0x[0-9a-f]{1000,}$/);
    expect(await x402.anvil.client.getCode({ address: x402.uptoProxy })).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await x402.anvil.client.getCode({ address: x402.exactProxy })).toMatch(/^0x[0-9a-f]{100,}$/);
  });

  test("GET /metered?charge=12345: signed for the 0.05 maximum, settled 12345 units in exactly one Transfer; a replay moves nothing", async () => {
    const charge = 12_345n;
    const payerBefore = await x402.balanceOf(payer.address);
    const response = await pay(`${x402.uptoUrl}/metered?charge=${charge}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ charged: String(charge) });
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address, amount: String(charge) });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    // What the client signed: Permit2 for the maximum, spender the upto proxy, the official facilitator named.
    const payment = decode(sent.at(-1)!);
    expect(payment.accepted.scheme).toBe("upto");
    expect(payment.accepted.amount).toBe(String(UPTO_MAX_UNITS));
    expect(payment.payload.permit2Authorization.permitted.amount).toBe(String(UPTO_MAX_UNITS));
    expect(payment.payload.permit2Authorization.spender).toBe(x402.uptoProxy);
    expect(payment.payload.permit2Authorization.witness.to).toBe(x402.uptoPayTo);
    expect(payment.payload.permit2Authorization.witness.facilitator).toBe(x402.facilitatorAddress);

    const transfers = await x402.transfersTo(x402.uptoPayTo);
    expect(transfers).toEqual([{ from: payer.address, to: x402.uptoPayTo, value: charge, transactionHash: settlement.transaction as `0x${string}` }]);
    expect(payerBefore - (await x402.balanceOf(payer.address))).toBe(charge);
    expect(await x402.permit2NonceUsed(payer.address, payment.payload.permit2Authorization.nonce)).toBe(true);

    // The same payment header again: nothing moves (Permit2's nonce is spent).
    const replay = await fetch(`${x402.uptoUrl}/metered?charge=${charge}`, { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
    expect(replay.status).toBe(402);
    expect(await x402.transfersTo(x402.uptoPayTo)).toHaveLength(1);
    expect(payerBefore - (await x402.balanceOf(payer.address))).toBe(charge);
  });
});
