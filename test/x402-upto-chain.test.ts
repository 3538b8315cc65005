// The upto fixture of test/x402/official.ts proven with official parts only: @x402/fetch with @x402/evm's
// upto client scheme pays the official upto seller (GET /metered) through the official facilitator, on the
// real Permit2 and the upto proxy stand-in (test/chain/permit2.ts). A failure of agentbank's upto buyer or
// facilitator against the same peers is then agentbank's, not the fixture's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BaseError, ContractFunctionRevertedError, createWalletClient, http, parseAbi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner, x402UptoPermit2ProxyABI } from "@x402/evm";
import { testActor } from "./chain/anvil";
import { signedUptoPayment } from "./x402/upto";
import { PRICE_UNITS, recordingPaymentFetch, startOfficialX402, UPTO_MAX_UNITS, type OfficialX402 } from "./x402/official";

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

/**
 * The upto proxy's ABI (@x402/evm's own) with the errors it lacks to name every revert: the proxy's
 * InvalidAmount() (x402's base contract has it; @x402/evm's upto ABI does not list it) and Permit2's.
 */
const proxyAbi = [
  ...x402UptoPermit2ProxyABI,
  ...parseAbi(["error InvalidAmount()", "error InvalidSigner()", "error SignatureExpired(uint256 signatureDeadline)", "error InvalidNonce()"]),
];

describe("the upto proxy (stand-in) on the real Permit2: x402's checks, named as x402's contract names them", () => {
  const signer = privateKeyToAccount(generatePrivateKey());
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  beforeAll(async () => {
    await x402.mint(signer.address, "1");
    await x402.approvePermit2(signer.address);
  });
  type Args = Awaited<ReturnType<typeof signedUptoPayment>>["settleArgs"] extends (amount: bigint) => infer A ? A : never;
  /** settle simulated (eth_call) from `from` (the official facilitator by default): "ok" or the revert's error name. */
  const outcome = async (args: Args, from: Address = x402.facilitatorAddress) => {
    try {
      await x402.anvil.client.simulateContract({ address: x402.uptoProxy, abi: proxyAbi, functionName: "settle", args, account: from });
      return "ok";
    } catch (error) {
      const revert = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null;
      return revert instanceof ContractFunctionRevertedError ? (revert.data?.errorName ?? revert.signature ?? revert.shortMessage) : String(error);
    }
  };
  const sign = (changes: Partial<Parameters<typeof signedUptoPayment>[2]> = {}) =>
    signedUptoPayment(x402, signer, { to: merchant, facilitator: x402.facilitatorAddress, ...changes });
  const now = () => BigInt(Math.floor(Date.now() / 1000));

  test("an honest settle below the maximum passes; the settle arguments match the official facilitator's", async () => {
    const payment = await sign();
    expect(await outcome(payment.settleArgs(1n))).toBe("ok");
    expect(await outcome(payment.settleArgs(UPTO_MAX_UNITS))).toBe("ok");
  });

  test("amount over the permit: AmountExceedsPermitted; zero: InvalidAmount", async () => {
    const payment = await sign();
    expect(await outcome(payment.settleArgs(UPTO_MAX_UNITS + 1n))).toBe("AmountExceedsPermitted");
    expect(await outcome(payment.settleArgs(0n))).toBe("InvalidAmount");
  });

  test("a caller other than the witness's facilitator: UnauthorizedFacilitator", async () => {
    const payment = await sign();
    expect(await outcome(payment.settleArgs(1n), testActor(2).address)).toBe("UnauthorizedFacilitator");
  });

  test("a witness changed after signing (to, or facilitator with a matching caller): Permit2's InvalidSigner", async () => {
    const payment = await sign();
    const [permit, amount, owner, witness, signature] = payment.settleArgs(1n);
    expect(await outcome([permit, amount, owner, { ...witness, to: testActor(2).address }, signature])).toBe("InvalidSigner");
    expect(await outcome([permit, amount, owner, { ...witness, facilitator: testActor(2).address }, signature], testActor(2).address)).toBe("InvalidSigner");
    expect(await outcome([{ ...permit, permitted: { ...permit.permitted, amount: UPTO_MAX_UNITS * 2n } }, UPTO_MAX_UNITS * 2n, owner, witness, signature])).toBe("InvalidSigner");
  });

  test("signed for another spender (the exact proxy): Permit2's InvalidSigner", async () => {
    const payment = await sign({ spender: x402.exactProxy });
    expect(await outcome(payment.settleArgs(1n))).toBe("InvalidSigner");
  });

  test("validAfter in the future: PaymentTooEarly; deadline passed: Permit2's SignatureExpired", async () => {
    expect(await outcome((await sign({ validAfter: now() + 3_600n })).settleArgs(1n))).toBe("PaymentTooEarly");
    expect(await outcome((await sign({ deadline: now() - 3_600n })).settleArgs(1n))).toBe("SignatureExpired");
  });

  test("settled once for real (one Transfer, Settled event, nonce spent), the same permit again: Permit2's InvalidNonce", async () => {
    const payment = await sign();
    const facilitator = createWalletClient({ chain: x402.anvil.chain, transport: http(x402.anvil.rpcUrl), account: testActor(1) });
    const hash = await facilitator.writeContract({ address: x402.uptoProxy, abi: proxyAbi, functionName: "settle", args: payment.settleArgs(777n) });
    const receipt = await x402.anvil.receipt(hash);
    expect(receipt.status).toBe("success");
    expect(await x402.transfersTo(merchant)).toEqual([{ from: signer.address, to: merchant, value: 777n, transactionHash: hash }]);
    expect(receipt.logs.some((log) => log.address.toLowerCase() === x402.uptoProxy.toLowerCase())).toBe(true);
    expect(await x402.permit2NonceUsed(signer.address, payment.settleArgs(0n)[0].nonce)).toBe(true);
    expect(await outcome(payment.settleArgs(1n))).toBe("InvalidNonce");
  });
});

describe("exact over Permit2: the official exact client pays /paid-permit2 through the exact proxy (stand-in)", () => {
  test("one Transfer of the price to payTo, Permit2's nonce spent; the same header again moves nothing", async () => {
    const buyer = privateKeyToAccount(generatePrivateKey());
    await x402.mint(buyer.address, "1");
    await x402.approvePermit2(buyer.address);
    const payExact = wrapFetchWithPayment(recordingFetch, new x402Client().register(x402.network.v2, new ExactEvmScheme(toClientEvmSigner(buyer)))) as typeof fetch;
    const before = await x402.transfersTo(x402.payTo);
    const response = await payExact(`${x402.v2Url}/paid-permit2`);
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: buyer.address });
    const payment = JSON.parse(Buffer.from(sent.at(-1)!, "base64").toString("utf8")) as {
      payload: { permit2Authorization: { spender: string; nonce: string; witness: { to: string } } };
    };
    expect(payment.payload.permit2Authorization.spender).toBe(x402.exactProxy);
    expect(payment.payload.permit2Authorization.witness.to).toBe(x402.payTo);
    const after = await x402.transfersTo(x402.payTo);
    expect(after.slice(before.length)).toEqual([{ from: buyer.address, to: x402.payTo, value: PRICE_UNITS, transactionHash: settlement.transaction as `0x${string}` }]);
    expect(await x402.permit2NonceUsed(buyer.address, payment.payload.permit2Authorization.nonce)).toBe(true);

    const replay = await fetch(`${x402.v2Url}/paid-permit2`, { headers: { "PAYMENT-SIGNATURE": sent.at(-1)! } });
    expect(replay.status).toBe(402);
    expect(await x402.transfersTo(x402.payTo)).toHaveLength(after.length);
  });
});
