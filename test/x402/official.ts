// x402 peers built only from the official npm packages, on a local anvil posing as base-sepolia, so
// agentbank's x402 client can be tested against real implementations rather than our reading of the spec.
//
//   chain        anvil --chain-id 84532 (base-sepolia). TestUSDC's runtime code is placed at the real
//                base-sepolia USDC address 0x036CbD53842c5426634e7929541eC2318f3dCF7e (anvil_setCode) and
//                named "USDC" (the EIP-712 domain every official package assumes: name "USDC", version "2");
//                a Multicall3 (tryAggregate, aggregate, aggregate3) at 0xcA11bde05977b3631167028862bE2a173976CA11,
//                which @x402/evm's facilitator calls (tryAggregate) when a verify simulation fails.
//                Permit2 at 0x000000000022D473030F116dDEE9F6B43aC78BA3: Uniswap's build, from @uniswap/uniswapx-sdk,
//                deployed through the CREATE2 deployer and asserted to land at the canonical address.
//                x402's Permit2 proxies at @x402/evm's addresses (upto 0x4020A4f3…0002, exact 0x402085c2…0001):
//                STAND-INS of our own (test/chain/X402Permit2Proxies.sol) with x402's ABI and checks, since
//                x402 publishes its contracts in no package registry and this project commits no code taken
//                from a public repository. test/chain/permit2.ts says more.
//   facilitator  one local HTTP facilitator (/supported, /verify, /settle) that routes by x402Version:
//                v1 -> `verify` / `settle` of `x402/facilitator` (the body parsed with x402's own zod schemas,
//                as x402's example facilitator does); v2 -> `x402Facilitator` of @x402/core/facilitator with
//                @x402/evm's exact EVM scheme (EIP-3009, and Permit2 through the exact proxy) and upto scheme
//                (Permit2 through the upto proxy; /supported's upto kind carries extra.facilitatorAddress).
//                Its signer is test actor 1 (it pays the gas, and is the facilitator upto payers name).
//   v1 server    express + `paymentMiddleware` of x402-express, pointed at the facilitator URL.
//   v2 server    express + `paymentMiddleware` of @x402/express, an `x402ResourceServer` (@x402/core) with
//                `HTTPFacilitatorClient` to the facilitator and @x402/evm's exact server scheme.
//   upto server  startUptoSeller (exported; started here against this facilitator as `uptoUrl`): GET /metered,
//                @x402/express with @x402/evm's upto server scheme, pointed at any facilitator URL.
//
// Routes on both servers (0.01 USDC = 10_000 units on base-sepolia, payTo = a random merchant address):
//   GET /paid      verify, handler (200 JSON), settle, the settlement header (v1 X-PAYMENT-RESPONSE,
//                  v2 PAYMENT-RESPONSE). Both middlewares buffer the handler's answer until settled.
//   GET /upfront   settled BEFORE the handler, which then answers 500; the settlement header is still sent.
//                  v2: the official way — the route's accepts carry `extra: { paymentFlow: "upfront" }`, a
//                  flow @x402/evm's exact scheme supports (eip3009: ["authorization", "upfront"]); @x402/core
//                  then skips /verify, settles in processHTTPRequest and @x402/express puts that settlement's
//                  PAYMENT-RESPONSE on the handler's error answer (createFailurePathSettlementHeaders). The
//                  advertised requirement therefore carries extra.paymentFlow = "upfront", and the client must
//                  echo it (in `accepted`) like every other field.
//                  v1: x402-express has no such setting (it always settles after a handler answering < 400),
//                  so the handler, reached after the middleware's verify, settles itself with x402's own
//                  facilitator client (`useFacilitator(...).settle`, the middleware's requirements rebuilt with
//                  x402's helpers), sets X-PAYMENT-RESPONSE and answers 500; the middleware then does not settle.
//   GET /fail      verify passes, the handler answers 500, nothing is settled: both middlewares only settle
//                  when the handler's status is < 400 (x402-express: `if (res.statusCode >= 400)` flushes
//                  without settling; @x402/express: `cancellationDispatcher.cancel({ reason: "handler_failed" })`,
//                  which settles only a scheme's settleOnCancel after a before-handler settlement — none here).
//                  No settlement header is sent.
//   GET /slow      the normal flow (verify, handler, settle), but the answer reaches the client only `slowMs`
//                  (default 12_000) after the settlement: a wrapper around res.end, installed before the payment
//                  middleware, holds successful answers back.
//   GET /id-required (v2 only) like /paid but declares the payment-identifier extension with required: true;
//                  a resource-server onBeforeVerify hook enforces it with @x402/extensions' own validators.
//   GET /paid-permit2 (v2 only) like /paid, but the requirement's extra says assetTransferMethod: "permit2":
//                  @x402/evm's exact client then signs a Permit2 witness transfer (spender the exact proxy,
//                  witness { to, validAfter }) instead of an EIP-3009 authorization, and the facilitator
//                  settles through the exact proxy. The payer needs a Permit2 allowance (approvePermit2).
//
// The v2 payment-identifier extension (@x402/extensions/payment-identifier) is declared on every v2 route:
//   PAYMENT-REQUIRED  extensions: { "payment-identifier": { info: { required: false }, schema: {...JSON schema} } }
//   Echo check (@x402/core x402ResourceServer.validateExtensions, before verify): for every extension key the
//   client sends that the server advertised, the echoed `info` must CONTAIN every advertised `info` field with a
//   deep-equal value (extra fields allowed; `schema` is not compared); otherwise the answer is 402 with
//   error "extension_echo_mismatch" and nothing is verified or settled. Sending no `extensions` at all passes.
//   So the payment the client sends (PAYMENT-SIGNATURE, base64 JSON) must be:
//     { x402Version: 2, resource, accepted: <the chosen accepts[i], verbatim>, payload: { authorization, signature },
//       extensions: { "payment-identifier": { info: { required: false, id: "pay_<16..128 of [A-Za-z0-9_-]>" } } } }
//   (`required` echoed with the advertised value; the `schema` may be echoed too — the official client echoes
//   the whole declaration and appendPaymentIdentifierToExtensions() adds info.id). { info: { id } } alone is
//   rejected. The id's format is only checked where the server asks for it (here: /id-required and any id sent
//   to a v2 route, by the onBeforeVerify hook below).
import { getAddress, parseSignature, parseUnits, publicActions, createWalletClient, http, type Abi, type Address, type Hex, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import express, { type NextFunction, type Request as ExpressRequest, type Response as ExpressResponse } from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
// protocol v1
import { paymentMiddleware as paymentMiddlewareV1 } from "x402-express";
import { settle as settleV1, verify as verifyV1 } from "x402/facilitator";
import { useFacilitator } from "x402/verify";
import { exact } from "x402/schemes";
import { processPriceToAtomicAmount } from "x402/shared";
import { PaymentPayloadSchema, PaymentRequirementsSchema, settleResponseHeader, type PaymentRequirements as PaymentRequirementsV1 } from "x402/types";
// protocol v2
import { paymentMiddleware as paymentMiddlewareV2, setSettlementOverrides, x402ResourceServer } from "@x402/express";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme as UptoEvmFacilitatorScheme } from "@x402/evm/upto/facilitator";
import { UptoEvmScheme as UptoEvmServerScheme } from "@x402/evm/upto/server";
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isPaymentIdentifierRequired,
  paymentIdentifierResourceServerExtension,
  PAYMENT_IDENTIFIER,
  validatePaymentIdentifier,
  validatePaymentIdentifierRequirement,
} from "@x402/extensions/payment-identifier";
import contracts from "../chain/contracts.json";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../../src/chain/eip3009";
import { startAnvil, testActor, type Anvil } from "../chain/anvil";
import { approvePermit2, deployPermit2, PERMIT2, permit2NonceUsed, placeX402Permit2Proxies, X402_EXACT_PROXY, X402_UPTO_PROXY } from "../chain/permit2";

export const BASE_SEPOLIA_CHAIN_ID = 84532;
/** base-sepolia's USDC, where the official packages look for it. */
export const USDC: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
export const NETWORK_V1 = "base-sepolia";
export const NETWORK_V2 = `eip155:${BASE_SEPOLIA_CHAIN_ID}` as const;
/** The price of every route, "$0.01", in USDC units. */
export const PRICE_UNITS = 10_000n;
const PRICE = "$0.01";
/** The most GET /metered (upto) may charge, "$0.05", in USDC units. */
export const UPTO_MAX_UNITS = 50_000n;
const UPTO_MAX_PRICE = "$0.05";

const usdcAbi = contracts.TestUSDC.abi as Abi;

export type FacilitatorCall = {
  version: 1 | 2;
  kind: "verify" | "settle";
  /** The payment's nonce: its EIP-3009 authorization's (hex), or its Permit2 authorization's (decimal). */
  nonce: string | undefined;
  result: Record<string, unknown>;
};

/** Runs `task`s one after another (the facilitator's single account must not race itself for nonces). */
function serialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const started = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(started)));
  });
  // Node's defaults close long requests; /slow holds its answer for a while.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 1_000;
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function closeServer(server: Server) {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/** A wallet of the facilitator's account on anvil, waiting for receipts through anvil (it mines on demand). */
export function facilitatorWalletOn(anvil: Anvil, account: LocalAccount) {
  return createWalletClient({ chain: anvil.chain, transport: http(anvil.rpcUrl), account })
    .extend(publicActions)
    .extend(() => ({ waitForTransactionReceipt: ({ hash }: { hash: Hex }) => anvil.receipt(hash) }));
}

/** @x402/evm's facilitator signer over that wallet, as the official packages' examples build it. */
export function officialFacilitatorSigner(wallet: ReturnType<typeof facilitatorWalletOn>, address: Address) {
  return toFacilitatorEvmSigner({
    address,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) => wallet.readContract({ ...args, args: args.args ?? [] } as never),
    verifyTypedData: (args) => wallet.verifyTypedData(args as never),
    writeContract: (args) => wallet.writeContract({ ...args, args: args.args ?? [] } as never),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  });
}

export async function startOfficialX402(options: { slowMs?: number } = {}) {
  let slowMs = options.slowMs ?? 12_000;
  const anvil: Anvil = await startAnvil({ chainId: BASE_SEPOLIA_CHAIN_ID });
  const rpc = (method: string, params: unknown[]) => anvil.client.request({ method: method as never, params: params as never });

  // --- the chain: TestUSDC at base-sepolia's USDC address, Multicall3 at its usual address ---
  const place = async (target: Address, deployed: Address) => {
    const code = await anvil.client.getCode({ address: deployed });
    if (!code || code === "0x") throw new Error(`no code at ${deployed}`);
    await rpc("anvil_setCode", [target, code]);
  };
  await place(USDC, anvil.usdc);
  await anvil.send("initialize", ["USDC"], USDC);
  await place(MULTICALL3, await anvil.deploy("Multicall3"));
  await deployPermit2(anvil);
  await placeX402Permit2Proxies(anvil);

  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const facilitatorAccount = testActor(1);
  // x402's v1 settle and @x402/evm's facilitator both wait through the wallet's waitForTransactionReceipt:
  // anvil's own receipt poll stands in for viem's (see Anvil.receipt).
  const facilitatorWallet = facilitatorWalletOn(anvil, facilitatorAccount);
  // The funder (test actor 0) mints: the facilitator's nonces stay its own.
  const mint = async (to: Address, amount: bigint | string) => {
    const units = typeof amount === "bigint" ? amount : parseUnits(amount, 6);
    await anvil.send("mint", [to, units], USDC);
  };
  const balanceOf = async (address: Address) =>
    (await anvil.client.readContract({ address: USDC, abi: usdcAbi, functionName: "balanceOf", args: [address] })) as bigint;
  const authorizationState = async (authorizer: Address, nonce: Hex) =>
    (await anvil.client.readContract({ address: USDC, abi: usdcAbi, functionName: "authorizationState", args: [authorizer, nonce] })) as boolean;
  // What whoever holds a payment header can do: submit its authorization on chain (test actor 2).
  const submitter = createWalletClient({ chain: anvil.chain, transport: http(anvil.rpcUrl), account: testActor(2) });
  /** transferWithAuthorization with a payment's authorization (gas fixed: one that reverts is mined anyway); the receipt's status. */
  const submitAuthorization = async (payload: { signature: Hex; authorization: Record<string, string> }) => {
    const { authorization: a, signature } = payload;
    const { r, s, v } = parseSignature(signature);
    const hash = await submitter.writeContract({
      address: USDC,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce, Number(v), r, s],
      gas: 200_000n,
    });
    return (await anvil.receipt(hash)).status;
  };

  // --- the facilitator ---
  // readContract calls from the facilitator's account: the upto proxy's settle, which @x402/evm simulates
  // with an eth_call, accepts only the facilitator named in the payer's witness as caller.
  const facilitatorSigner = officialFacilitatorSigner(facilitatorWallet, facilitatorAccount.address);
  const v2Facilitator = new x402Facilitator()
    .register(NETWORK_V2, new ExactEvmFacilitatorScheme(facilitatorSigner))
    .register(NETWORK_V2, new UptoEvmFacilitatorScheme(facilitatorSigner));
  const serial = serialQueue();
  const facilitatorCalls: FacilitatorCall[] = [];
  const nonceOf = (payload: unknown): string | undefined => {
    const inner = (payload as { payload?: { authorization?: { nonce?: string }; permit2Authorization?: { nonce?: string } } } | undefined)?.payload;
    return inner?.authorization?.nonce ?? inner?.permit2Authorization?.nonce;
  };

  async function facilitate(kind: "verify" | "settle", body: { x402Version?: number; paymentPayload?: unknown; paymentRequirements?: unknown }) {
    const version = Number((body.paymentPayload as { x402Version?: number } | undefined)?.x402Version ?? body.x402Version);
    let result: Record<string, unknown>;
    if (version === 1) {
      const payload = PaymentPayloadSchema.parse(body.paymentPayload);
      const requirements = PaymentRequirementsSchema.parse(body.paymentRequirements);
      result =
        kind === "verify"
          ? await verifyV1(facilitatorWallet as never, payload, requirements)
          : await serial(() => settleV1(facilitatorWallet as never, payload, requirements));
    } else if (version === 2) {
      const payload = body.paymentPayload as PaymentPayload;
      const requirements = body.paymentRequirements as PaymentRequirements;
      result =
        kind === "verify"
          ? await v2Facilitator.verify(payload, requirements)
          : await serial(() => v2Facilitator.settle(payload, requirements));
    } else {
      throw new Error(`unsupported x402Version ${version}`);
    }
    facilitatorCalls.push({ version: version as 1 | 2, kind, nonce: nonceOf(body.paymentPayload), result });
    return result;
  }

  const facilitator = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const { pathname } = new URL(request.url);
      try {
        if (request.method === "GET" && pathname === "/supported") {
          const supported = v2Facilitator.getSupported();
          return Response.json({ ...supported, kinds: [{ x402Version: 1, scheme: "exact", network: NETWORK_V1 }, ...supported.kinds] });
        }
        if (request.method === "POST" && (pathname === "/verify" || pathname === "/settle")) {
          const body = (await request.json()) as Parameters<typeof facilitate>[1];
          return Response.json(await facilitate(pathname === "/verify" ? "verify" : "settle", body));
        }
        return Response.json({ error: "not found" }, { status: 404 });
      } catch (error) {
        return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
      }
    },
  });
  const facilitatorUrl = `http://127.0.0.1:${facilitator.port}` as const;

  // --- shared handlers ---
  /** /slow: the answer (after the middleware has settled) is held back slowMs; errors are not delayed. */
  const holdSlowAnswer = (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (req.path !== "/slow") return next();
    const end = res.end.bind(res) as (...args: unknown[]) => ExpressResponse;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode >= 400) return end(...args);
      setTimeout(() => end(...args), slowMs);
      return res;
    }) as ExpressResponse["end"];
    next();
  };
  const handlers = (version: 1 | 2, app: express.Express) => {
    app.get("/paid", (_req, res) => {
      res.json({ data: `v${version} paid content` });
    });
    if (version === 2) {
      app.get("/id-required", (_req, res) => {
        res.json({ data: `v${version} paid content` });
      });
      app.get("/paid-permit2", (_req, res) => {
        res.json({ data: `v${version} paid content` });
      });
    }
    app.get("/fail", (_req, res) => {
      res.status(500).json({ error: "the handler failed" });
    });
    app.get("/slow", (_req, res) => {
      res.json({ data: `v${version} slow content` });
    });
  };

  // --- v1: x402-express ---
  const v1Routes = {
    "GET /paid": { price: PRICE, network: NETWORK_V1, config: { description: "paid content", mimeType: "application/json" } },
    "GET /upfront": { price: PRICE, network: NETWORK_V1, config: { description: "settled before the handler", mimeType: "application/json" } },
    "GET /fail": { price: PRICE, network: NETWORK_V1, config: { description: "the handler fails", mimeType: "application/json" } },
    "GET /slow": { price: PRICE, network: NETWORK_V1, config: { description: "a slow answer", mimeType: "application/json" } },
  } as const;
  const v1App = express();
  v1App.use(holdSlowAnswer);
  v1App.use(paymentMiddlewareV1(payTo, v1Routes, { url: facilitatorUrl }));
  const v1Facilitator = useFacilitator({ url: facilitatorUrl });
  v1App.get("/upfront", async (req, res) => {
    // The middleware verified the payment and would settle after an answer < 400; settle now, fail after.
    const atomic = processPriceToAtomicAmount(PRICE, NETWORK_V1);
    if ("error" in atomic) throw new Error(atomic.error);
    const requirements: PaymentRequirementsV1 = {
      scheme: "exact",
      network: NETWORK_V1,
      maxAmountRequired: atomic.maxAmountRequired,
      resource: `${req.protocol}://${req.headers.host}${req.path}`,
      description: v1Routes["GET /upfront"].config.description,
      mimeType: v1Routes["GET /upfront"].config.mimeType,
      payTo: getAddress(payTo),
      maxTimeoutSeconds: 60,
      asset: getAddress((atomic.asset as { address: string }).address),
      extra: (atomic.asset as { eip712?: Record<string, unknown> }).eip712,
    };
    const payment = exact.evm.decodePayment(req.header("X-PAYMENT")!);
    const settlement = await v1Facilitator.settle(payment, requirements);
    res.setHeader("X-PAYMENT-RESPONSE", settleResponseHeader(settlement));
    if (!settlement.success) {
      res.status(402).json({ x402Version: 1, error: settlement.errorReason, accepts: [requirements] });
      return;
    }
    res.status(500).json({ error: "the handler failed after the payment was settled" });
  });
  handlers(1, v1App);
  const v1 = await listen(v1App);

  // --- v2: @x402/express + @x402/core + @x402/evm ---
  const paymentIdentifiers: string[] = [];
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl }))
    .register(NETWORK_V2, new ExactEvmServerScheme())
    .registerExtension(paymentIdentifierResourceServerExtension)
    // The echo has already been checked against the declaration (validateExtensions); here, the id itself.
    .onBeforeVerify(async (context) => {
      const paymentPayload = context.paymentPayload as PaymentPayload;
      const declaredExtensions = context.declaredExtensions;
      const echoed = paymentPayload.extensions?.[PAYMENT_IDENTIFIER];
      if (echoed !== undefined) {
        const validation = validatePaymentIdentifier(echoed);
        if (!validation.valid) return { abort: true, reason: "invalid_payment_identifier", message: validation.errors?.join("; ") };
      }
      const required = validatePaymentIdentifierRequirement(paymentPayload, isPaymentIdentifierRequired(declaredExtensions[PAYMENT_IDENTIFIER]));
      if (!required.valid) return { abort: true, reason: "payment_identifier_required", message: required.errors?.join("; ") };
      const id = extractPaymentIdentifier(paymentPayload);
      if (id) paymentIdentifiers.push(id);
    });
  const accepts = (extra?: Record<string, unknown>) => ({ scheme: "exact", price: PRICE, network: NETWORK_V2, payTo, maxTimeoutSeconds: 60, ...(extra ? { extra } : {}) });
  const optionalId = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
  const v2Routes = {
    "GET /paid": { accepts: accepts(), description: "paid content", mimeType: "application/json", extensions: optionalId },
    "GET /id-required": {
      accepts: accepts(),
      description: "paid content, payment identifier required",
      mimeType: "application/json",
      extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(true) },
    },
    "GET /upfront": { accepts: accepts({ paymentFlow: "upfront" }), description: "settled before the handler", mimeType: "application/json", extensions: optionalId },
    "GET /fail": { accepts: accepts(), description: "the handler fails", mimeType: "application/json", extensions: optionalId },
    "GET /slow": { accepts: accepts(), description: "a slow answer", mimeType: "application/json", extensions: optionalId },
    "GET /paid-permit2": { accepts: accepts({ assetTransferMethod: "permit2" }), description: "paid content, exact over Permit2", mimeType: "application/json", extensions: optionalId },
  };
  const v2App = express();
  v2App.use(holdSlowAnswer);
  v2App.use(paymentMiddlewareV2(v2Routes, resourceServer));
  v2App.get("/upfront", (_req, res) => {
    res.status(500).json({ error: "the handler failed after the payment was settled" });
  });
  handlers(2, v2App);
  const v2 = await listen(v2App);
  const upto = await startUptoSeller({ facilitatorUrl });

  return {
    anvil,
    chainId: BASE_SEPOLIA_CHAIN_ID,
    network: { v1: NETWORK_V1, v2: NETWORK_V2 },
    usdc: USDC,
    price: PRICE_UNITS,
    payTo,
    facilitatorAddress: facilitatorAccount.address,
    facilitatorUrl,
    /** Base URLs (no trailing slash) of the x402-express and @x402/express servers. */
    v1Url: v1.url,
    v2Url: v2.url,
    /** Base URL of the official upto seller (GET /metered), paid through this facilitator, and its payTo (its own). */
    uptoUrl: upto.url,
    uptoPayTo: upto.payTo,
    permit2: PERMIT2,
    uptoProxy: X402_UPTO_PROXY,
    exactProxy: X402_EXACT_PROXY,
    /** Every /verify and /settle the facilitator answered, in order. */
    facilitatorCalls,
    /** payment-identifier ids the v2 server accepted (after the echo check), in order. */
    paymentIdentifiers,
    /** Mints test USDC at the base-sepolia address: bigint = units, string = USDC ("1.5"). */
    mint,
    balanceOf,
    /** USDC Transfer events (base-sepolia address) to `to`, from the first block. */
    transfersTo: async (to: Address) => {
      const logs = await anvil.client.getContractEvents({ address: USDC, abi: usdcAbi, eventName: "Transfer", args: { to }, fromBlock: 0n });
      return logs.map((log) => ({ ...(log.args as { from: Address; to: Address; value: bigint }), transactionHash: log.transactionHash }));
    },
    authorizationState,
    submitAuthorization,
    /** `owner` approves Permit2 for USDC (max by default), as a Permit2 payer must once; see test/chain/permit2.ts. */
    approvePermit2: (owner: Address, amount?: bigint) => approvePermit2(anvil, owner, USDC, amount),
    /** Whether Permit2 has used `owner`'s nonce (a Permit2 authorization's `nonce`, decimal string or bigint). */
    permit2NonceUsed: (owner: Address, nonce: bigint | string) => permit2NonceUsed(anvil, owner, nonce),
    setSlowMs: (ms: number) => {
      slowMs = ms;
    },
    stop: async () => {
      await Promise.all([closeServer(v1.server), closeServer(v2.server), upto.stop()]);
      facilitator.stop(true);
      anvil.stop();
    },
  };
}

export type OfficialX402 = Awaited<ReturnType<typeof startOfficialX402>>;

/** fetch that appends each request's PAYMENT-SIGNATURE header (x402 v2), as sent, to `sent`. */
export function recordingPaymentFetch(sent: string[]): typeof fetch {
  return (async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
    const header = request.headers.get("payment-signature");
    if (header) sent.push(header);
    return fetch(request);
  }) as typeof fetch;
}

// ---------------------------------------------------------------------------------------------------
// An official upto seller, paid through any facilitator.

/**
 * express + `paymentMiddleware` of @x402/express, an `x402ResourceServer` with `HTTPFacilitatorClient` to
 * `facilitatorUrl` (the official facilitator of startOfficialX402, or agentbank's `<server>/x402/facilitator`)
 * and @x402/evm's upto server scheme. One route:
 *   GET /metered?charge=<units>  upto UPTO_MAX_UNITS ("$0.05") of base-sepolia USDC to `payTo`. The client
 *                signs a Permit2 authorization for the maximum, naming the facilitator that /supported
 *                advertises in the upto kind's `extra.facilitatorAddress` (the upto server scheme copies it
 *                into the requirements' extra; without it the official client refuses to pay). After verify,
 *                the handler sets the amount actually charged with @x402/express's setSettlementOverrides
 *                ({ amount: "<charge>" }: atomic units; @x402/core also reads "$0.01" or "50%"), and the
 *                middleware settles that amount (@x402/core passes requirements with amount = the override to
 *                the facilitator's /settle). No `charge`: the maximum. charge=0: settles nothing on chain
 *                (@x402/evm's facilitator answers success with no transaction). Answers { charged: "<units>" }.
 * The middleware asks the facilitator's /supported as the seller starts (its upto kind must carry
 * extra.facilitatorAddress, or no client can pay): start the facilitator first. Should that ask fail, the first
 * paid request answers an error (502/500) and the next one asks again.
 */
export async function startUptoSeller(options: { facilitatorUrl: string; payTo?: Address; facilitatorKey?: string }) {
  const payTo = options.payTo ?? privateKeyToAccount(generatePrivateKey()).address;
  // agentbank's facilitator takes the seller agent's key on every call.
  const auth: Record<string, string> = options.facilitatorKey ? { authorization: `Bearer ${options.facilitatorKey}` } : {};
  const facilitator = new HTTPFacilitatorClient({ url: options.facilitatorUrl, createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
  const resourceServer = new x402ResourceServer(facilitator).register(NETWORK_V2, new UptoEvmServerScheme());
  const routes = {
    "GET /metered": {
      accepts: { scheme: "upto", price: UPTO_MAX_PRICE, network: NETWORK_V2, payTo, maxTimeoutSeconds: 60 },
      description: "metered content: charged up to $0.05",
      mimeType: "application/json",
    },
  };
  const app = express();
  app.use(paymentMiddlewareV2(routes, resourceServer));
  app.get("/metered", (req, res) => {
    const charge = typeof req.query.charge === "string" ? req.query.charge : String(UPTO_MAX_UNITS);
    setSettlementOverrides(res, { amount: charge });
    res.json({ charged: charge });
  });
  const { url, server } = await listen(app);
  return { url, payTo, maxUnits: UPTO_MAX_UNITS, stop: () => closeServer(server) };
}

export type UptoSeller = Awaited<ReturnType<typeof startUptoSeller>>;

// ---------------------------------------------------------------------------------------------------
// A raw attacker: 402s with crafted requirements, no official package involved.

/** The crafted requirement of each case: what it changes from an honest 0.01 USDC base-sepolia offer. */
export const HOSTILE_CASES = {
  negative: { amount: "-5000000" },
  zero: { amount: "0" },
  fraction: { amount: "1.5" },
  exponent: { amount: "1e6" },
  huge: { amount: "99999999999999999999999999999" },
  "wrong-asset": { asset: "0x1111111111111111111111111111111111111111" },
  "wrong-network": { network: { v1: "base", v2: "eip155:8453" } },
} as const satisfies Record<string, { amount?: string; asset?: string; network?: { v1: string; v2: string } }>;
export type HostileCase = keyof typeof HOSTILE_CASES;

/**
 * Routes: GET|POST /v1/<case> (402, JSON body) and /v2/<case> (402, PAYMENT-REQUIRED header), <case> one of
 * HOSTILE_CASES; /v1/amount/<raw> and /v2/amount/<raw> offer any amount string (URL-decoded). A request that
 * carries a payment header anyway (X-PAYMENT / PAYMENT-SIGNATURE) is recorded in `payments` and answered 200
 * without any settlement: a client that signs for these offers has already lost.
 */
export function startHostile402(options: { payTo?: Address; usdc?: Address } = {}) {
  const payTo = options.payTo ?? privateKeyToAccount(generatePrivateKey()).address;
  const asset = options.usdc ?? USDC;
  const payments: { path: string; version: 1 | 2; header: string; decoded: unknown }[] = [];
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const match = /^\/v([12])\/(?:amount\/(.+)|([a-z-]+))$/.exec(url.pathname);
      if (!match) return Response.json({ error: "not found" }, { status: 404 });
      const version = Number(match[1]) as 1 | 2;
      const crafted: { amount?: string; asset?: string; network?: { v1: string; v2: string } } =
        match[2] !== undefined ? { amount: decodeURIComponent(match[2]) } : HOSTILE_CASES[match[3] as HostileCase];
      if (!crafted) return Response.json({ error: "no such case" }, { status: 404 });
      const header = request.headers.get(version === 1 ? "x-payment" : "payment-signature");
      if (header) {
        let decoded: unknown = null;
        try {
          decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
        } catch {}
        payments.push({ path: url.pathname, version, header, decoded });
        return Response.json({ hostile: "payment received" });
      }
      const amount = crafted.amount ?? String(PRICE_UNITS);
      const common = {
        scheme: "exact",
        payTo,
        maxTimeoutSeconds: 60,
        asset: crafted.asset ?? asset,
        extra: { name: "USDC", version: "2" },
      };
      const resource = url.toString();
      if (version === 1) {
        return Response.json(
          {
            x402Version: 1,
            error: "X-PAYMENT header is required",
            accepts: [{ ...common, network: crafted.network?.v1 ?? NETWORK_V1, maxAmountRequired: amount, resource, description: "hostile", mimeType: "application/json" }],
          },
          { status: 402 },
        );
      }
      const required = {
        x402Version: 2,
        error: "Payment required",
        resource: { url: resource, description: "hostile", mimeType: "application/json" },
        accepts: [{ ...common, network: crafted.network?.v2 ?? NETWORK_V2, amount }],
      };
      return Response.json({}, { status: 402, headers: { "PAYMENT-REQUIRED": encode(required) } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    payTo,
    /** Payment headers that reached the server (there should be none). */
    payments,
    stop: () => server.stop(true),
  };
}

export type Hostile402 = ReturnType<typeof startHostile402>;

// ---------------------------------------------------------------------------------------------------
// A buyer of agentbank's facilitator (test/x402-facilitator.test.ts, the discovery list's paging walk).

/**
 * A facilitator request body (x402 v2 verify/settle) for a payment to `to` of `amount` base units (0.01
 * USDC by default), its EIP-3009 authorization signed by hand so that each field can be wrong (`value`:
 * the authorization's, when it is not the amount); `resource` and `extensions` are sent as given.
 */
export async function signedPayment(
  x: { chainId: number; usdc: Address },
  account: PrivateKeyAccount,
  changes: { to: Address; amount?: bigint; value?: bigint; validBefore?: bigint; resource?: { url: string; description?: string }; extensions?: Record<string, unknown> },
) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const amount = changes.amount ?? PRICE_UNITS;
  const authorization = {
    from: account.address,
    to: changes.to,
    value: changes.value ?? amount,
    validAfter: now - 600n,
    validBefore: changes.validBefore ?? now + 60n,
    nonce: generatePrivateKey() as Hex,
  };
  const signature = await account.signTypedData({
    domain: { name: "USDC", version: "2", chainId: x.chainId, verifyingContract: x.usdc },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  const requirements = {
    scheme: "exact",
    network: NETWORK_V2,
    asset: x.usdc,
    amount: String(amount),
    payTo: changes.to,
    maxTimeoutSeconds: 60,
    extra: { name: "USDC", version: "2" },
  };
  const wire = Object.fromEntries(Object.entries(authorization).map(([key, value]) => [key, String(value)]));
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload: { authorization: wire, signature }, resource: changes.resource, extensions: changes.extensions }, paymentRequirements: requirements };
}
