// The class, generated (issue 32): every kind of credential × every commitment that outlives the request
// that made it × every way a credential ends. For each cell the commitment is made with the credential,
// the credential ends (revoked, expired, rotated away, its budget spent elsewhere, or its agent frozen by
// the owner: issue 33), and then whatever would move money later because of the commitment runs: nothing
// may move on behalf of a credential that has ended, what was counted when it was made may still move
// when only the budget ran out, a frozen agent moves nothing more on its own behalf (but pays what it owes,
// and what others do with its open offers and bets goes on), and money coming in is never refused
// (src/keys/commitments.ts and src/outflows/release.ts say the rules). The commitments are the code's
// own list (COMMITMENTS) and the credentials the kinds a request can carry (CREDENTIAL_KINDS): a kind
// without a row here fails the first test.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { CREDENTIAL_KINDS } from "../src/auth/keys";
import { COMMITMENTS, type CommitmentKind } from "../src/keys/commitments";
import { SCOPES } from "../src/keys/scopes";
import { TEST_MNEMONIC } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { signIn } from "./helpers/console";
import { grantOverHttp, refresh, registerClient, toolFor, toolReply, type Host } from "./helpers/oauth";
import { startServer, type Agent, type Reply, type TestServer } from "./helpers/server";
import { startBatchSeller, type BatchSeller } from "./x402/batch";
import { PRICE_UNITS, signedPayment, startHostile402, startOfficialX402, type Hostile402, type OfficialX402 } from "./x402/official";

setDefaultTimeout(60_000);

const USDC = "USDC";
/** What each commitment puts at stake, in USDC. */
const AMOUNT = 10;
const PRICE = Number(PRICE_UNITS) / 1e6;
/** A key's budget when its budget is not what ends it, and when it is (what the commitment counts, then spent to the end elsewhere). */
const ROOMY = 500;
const TIGHT = 2 * AMOUNT;
const KEY_SECONDS = 600;
const GRANT_SECONDS = 30 * 86_400;
/** The service's treasury (the first address of TEST_MNEMONIC): it funds batch-settlement channels on chain. */
const TREASURY: Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/** What a channel toward the batch seller holds: the seller's announced minimum, ten prices (test/x402/batch.ts). */
const DEPOSIT = 10 * PRICE;

type Ending = "revoked" | "expired" | "rotated" | "overspent" | "token_expired" | "frozen";

let x: OfficialX402;
/** The official batch-settlement seller, on the same anvil. */
let batch: BatchSeller;
let hostile: Hostile402;
let server: TestServer;
/** The gated resource's first (unpaid) request waits for the test to open it: an /x402/pay in flight. */
let gated: ReturnType<typeof Bun.serve>;
let opening: (() => void) | null = null;
let reached: (() => void) | null = null;

beforeAll(async () => {
  x = await startOfficialX402();
  batch = await startBatchSeller({ on: x.anvil });
  await batch.mint(TREASURY, 100_000_000n);
  hostile = startHostile402();
  gated = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (!request.headers.get("payment-signature")) {
        reached?.();
        await new Promise<void>((resolve) => (opening = resolve));
      }
      const answer = await fetch(`${hostile.url}/v2/amount/${PRICE_UNITS}`, { headers: request.headers });
      return new Response(answer.body, { status: answer.status, headers: answer.headers, statusText: url.pathname });
    },
  });
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
});
afterAll(async () => {
  gated?.stop(true);
  hostile?.stop();
  await server?.close();
  await batch?.stop();
  await x?.stop();
});

// ---------------------------------------------------------------------------------------------------
// The credentials: each makes a caller for agent A with a USDC budget, and ends it one of its ways.

type Caller = {
  /** How a request is made with the credential: REST, or a tool call over /mcp (an MCP host's token). */
  call(method: string, path: string, body?: Record<string, unknown>): Promise<Reply>;
  /** The owner key in force (rotating it replaces it). */
  ownerKey(): string;
  end(ending: Ending): Promise<void>;
  /** Spends `amount` USDC of the credential's budget (at the key that holds the budget) on a payment to B. */
  overspend(amount: number): Promise<void>;
};
type Context = { a: Agent; b: Agent; budget: number };

const rest = (bearer: () => string) => (method: string, path: string, body?: Record<string, unknown>) => server.request(method, path, { key: bearer(), body });

async function rotateAgentKey(a: Agent): Promise<void> {
  const rotated = await server.request("POST", "/agents/me/keys/rotate", { key: a.apiKey });
  expect(rotated.status).toBe(200);
  a.apiKey = rotated.body.apiKey;
}
async function rotateOwnerKey(a: Agent): Promise<void> {
  const rotated = await server.request("POST", "/owner/key/rotate", { key: a.ownerKey });
  expect(rotated.status).toBe(200);
  a.ownerKey = rotated.body.ownerKey;
}
async function makeKey(bearer: string, budget: number, extra: Record<string, unknown> = {}): Promise<{ id: string; apiKey: string }> {
  const made = await server.request("POST", "/agents/me/keys", { key: bearer, body: { name: "credential test", scopes: [...SCOPES], budgets: { USDC: { total: budget } }, ...extra } });
  expect(made.status).toBe(201);
  return made.body;
}
const revoke = async (a: Agent, id: string) => expect((await server.request("DELETE", `/agents/me/keys/${id}`, { key: a.apiKey })).status).toBe(200);
const pay = (call: Caller["call"], to: Agent, amount: number) => call("POST", "/payments/send", { toAgentId: to.id, amount, currency: USDC });

type CredentialRow = { name: string; kind: (typeof CREDENTIAL_KINDS)[number]; endings: Ending[]; make(ctx: Context): Promise<Caller> };

const CREDENTIALS: CredentialRow[] = [
  {
    name: "the agent key",
    kind: "agent_key",
    endings: ["rotated", "frozen"],
    async make({ a }) {
      return { call: rest(() => a.apiKey), ownerKey: () => a.ownerKey, end: () => rotateAgentKey(a), overspend: async () => {} };
    },
  },
  {
    name: "a key the owner key made",
    kind: "owner_key",
    endings: ["rotated", "frozen"],
    async make({ a, budget }) {
      const key = await makeKey(a.ownerKey, budget);
      return { call: rest(() => key.apiKey), ownerKey: () => a.ownerKey, end: () => rotateOwnerKey(a), overspend: async () => {} };
    },
  },
  {
    name: "a restricted key (depth 1)",
    kind: "restricted_key",
    endings: ["revoked", "expired", "rotated", "overspent", "frozen"],
    async make({ a, b, budget }) {
      const key = await makeKey(a.apiKey, budget, { expiresInSeconds: KEY_SECONDS });
      const call = rest(() => key.apiKey);
      return {
        call,
        ownerKey: () => a.ownerKey,
        async end(ending) {
          if (ending === "revoked") await revoke(a, key.id);
          if (ending === "expired") await server.advance(KEY_SECONDS + 1);
          if (ending === "rotated") await rotateAgentKey(a);
        },
        overspend: async (amount) => expect((await pay(call, b, amount)).status).toBeOneOf([201, 202]),
      };
    },
  },
  {
    name: "a restricted key made by a key made by a key (depth 3)",
    kind: "restricted_key",
    endings: ["revoked", "expired", "rotated", "overspent", "frozen"],
    async make({ a, b, budget }) {
      const first = await makeKey(a.apiKey, budget, { expiresInSeconds: KEY_SECONDS });
      const second = await makeKey(first.apiKey, budget);
      const third = await makeKey(second.apiKey, budget);
      return {
        call: rest(() => third.apiKey),
        ownerKey: () => a.ownerKey,
        async end(ending) {
          // Each ends at the top of the chain: the key the others were made from.
          if (ending === "revoked") await revoke(a, first.id);
          if (ending === "expired") await server.advance(KEY_SECONDS + 1);
          if (ending === "rotated") await rotateAgentKey(a);
        },
        overspend: async (amount) => expect((await pay(rest(() => first.apiKey), b, amount)).status).toBeOneOf([201, 202]),
      };
    },
  },
  {
    name: "an MCP host's OAuth token",
    kind: "oauth_token",
    endings: ["revoked", "expired", "rotated", "overspent", "token_expired", "frozen"],
    async make({ a, b, budget }) {
      const host: Host = { clientId: "", redirectUri: "http://127.0.0.1:9/callback" };
      host.clientId = ((await (await registerClient(server, [host.redirectUri], "credential test host")).json()) as { client_id: string }).client_id;
      let tokens = await grantOverHttp(server, await signIn(server, a.ownerKey), host, [...SCOPES], { USDC: String(budget) });
      const call = (method: string, path: string, body: Record<string, unknown> = {}) => {
        const [tool, args] = toolFor(method, path, body);
        return toolReply(server, tokens.access_token, tool, args) as Promise<Reply>;
      };
      return {
        call,
        ownerKey: () => a.ownerKey,
        async end(ending) {
          if (ending === "revoked") {
            const keys = (await server.request("GET", "/agents/me/keys?limit=100", { key: a.apiKey })).body.data as { id: string; name: string }[];
            await revoke(a, keys.find((key) => key.name.startsWith("MCP host:"))!.id);
          }
          if (ending === "expired") await server.advance(GRANT_SECONDS + 1);
          if (ending === "rotated") await rotateOwnerKey(a);
          if (ending === "token_expired") {
            // The token's hour passes; the host renews it within the grant, as hosts do.
            await server.advance(3_601);
            const renewed = await refresh(server, host, tokens.refresh_token);
            expect(renewed.status).toBe(200);
            tokens = (await renewed.json()) as typeof tokens;
          }
        },
        overspend: async (amount) => expect((await pay(call, b, amount)).status).toBe(200),
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------------
// The commitments: each is made with the caller, then `later` runs what would move money because of it.
// `moved` says whether that movement happened (checked against balances), given whether it may.

type Scenario = {
  /** What making it counted against the caller's budget (USDC). */
  counted: number;
  /** Whether it still moves money once its credential ended this way. */
  continues(ending: Ending, credential: CredentialRow): boolean;
  make(ctx: Context, caller: Caller): Promise<unknown>;
  /** Runs the later movement (the credential may have ended; `keyEnded`: the key that made it is no longer in force); returns whether money moved. */
  later(ctx: Context, caller: Caller, made: any, keyEnded: boolean): Promise<boolean>;
  /** Not applicable to a credential, with the reason (the cell is still listed). */
  notFor?: (credential: CredentialRow) => string | null;
};

const total = async (agent: Agent) => {
  const { available, held } = await server.balance(agent, USDC);
  return Math.round((available + held) * 1e6) / 1e6;
};
const ok = (reply: Reply) => reply.status >= 200 && reply.status < 300;
/** The credential ended for good: nothing moves on its behalf. Only the budget running out lets counted commitments go on. */
const stillInForce = (ending: Ending, credential: CredentialRow) => credential.kind === "agent_key" || ending === "token_expired";
const countedAtMaking = (ending: Ending, credential: CredentialRow) => stillInForce(ending, credential) || ending === "overspent";
/** The key that made the commitment is no longer in force (revoked, expired, rotated away): a spent budget or a frozen agent leaves it in force. */
const keyEnded = (ending: Ending, credential: CredentialRow) => ending !== "frozen" && !countedAtMaking(ending, credential);
const money = (value: number) => Math.round(value * 1e6) / 1e6;
/**
 * Its agent frozen (issue 33): its own later movements stop (charges, approvals, releases, an x402 debit);
 * a repayment, what it owes, is made; its open offers and bets stay open to others (the owner withdraws them).
 */
const unlessFrozen = (rule: Scenario["continues"]): Scenario["continues"] => (ending, credential) => ending !== "frozen" && rule(ending, credential);
const evenFrozen = (rule: Scenario["continues"]): Scenario["continues"] => (ending, credential) => ending === "frozen" || rule(ending, credential);

const SCENARIOS: Record<CommitmentKind, Scenario> = {
  subscription: {
    counted: AMOUNT,
    // Each charge is a new outflow of the key: a spent budget refuses it too; a frozen payer's pause.
    continues: unlessFrozen(stillInForce),
    async make({ b }, caller) {
      const made = await caller.call("POST", "/subscriptions", { recipientId: b.id, amount: AMOUNT, currency: USDC, frequency: "DAILY" });
      expect(made.body).toMatchObject({ status: "ACTIVE" });
      return made.body;
    },
    async later({ b }) {
      const before = await total(b);
      await server.advance(86_400);
      return (await total(b)) > before;
    },
  },
  approval: {
    counted: AMOUNT,
    // Approving a frozen agent's outflow is refused (it stays PENDING).
    continues: unlessFrozen(countedAtMaking),
    async make({ a, b }, caller) {
      expect((await server.request("PUT", "/owner/policy", { key: a.ownerKey, body: { approvalAbove: { USDC: AMOUNT / 2 } } })).status).toBe(200);
      const held = await pay(caller.call, b, AMOUNT);
      expect(held.body.status).toBe("AWAITING_APPROVAL");
      return held.body;
    },
    async later({ b }, caller, held) {
      const before = await total(b);
      const decided = await server.request("POST", `/owner/approvals/${held.approvalId}/approve`, { key: caller.ownerKey() });
      return ok(decided) && decided.body.status === "APPROVED" && (await total(b)) === before + AMOUNT;
    },
  },
  loan_offer: {
    counted: AMOUNT,
    // Taking an open offer is the borrower's move: it stays open while the lender is frozen.
    continues: evenFrozen(countedAtMaking),
    async make(_, caller) {
      const made = await caller.call("POST", "/lending/offers", { amount: AMOUNT, currency: USDC, interestRate: 0, durationDays: 30, collateralPercent: 0 });
      expect(made.body.status).toBe("OPEN");
      return made.body;
    },
    async later({ b }, _, offer) {
      await server.advance(1);
      return ok(await server.request("POST", "/lending/borrow", { key: b.apiKey, body: { offerId: offer.id } }));
    },
  },
  bet: {
    counted: AMOUNT,
    continues: evenFrozen(countedAtMaking),
    async make(_, caller) {
      const made = await caller.call("POST", "/betting", { description: "credential test", condition: "it rains", amount: AMOUNT, currency: USDC });
      expect(made.body.status).toBe("OPEN");
      return made.body;
    },
    async later({ b }, _, bet) {
      await server.advance(1);
      return ok(await server.request("POST", `/betting/${bet.id}/accept`, { key: b.apiKey }));
    },
  },
  contract: {
    counted: AMOUNT,
    // The last condition is a release a frozen agent may not make (outflows/release.ts).
    continues: unlessFrozen(countedAtMaking),
    async make({ b }, caller) {
      const conditions = [{ id: "done", type: "manual", description: "the work is done", params: {} }];
      const made = await caller.call("POST", "/contracts", { counterpartyId: b.id, title: "credential test", description: "work", escrowAmount: AMOUNT, currency: USDC, conditions });
      expect(made.body.status).toBe("PENDING_SIGNATURE");
      expect((await server.request("POST", `/contracts/${made.body.id}/sign`, { key: b.apiKey })).status).toBe(200);
      return made.body;
    },
    async later({ b }, caller, contract) {
      const before = await total(b);
      await caller.call("POST", `/contracts/${contract.id}/fulfill`, { conditionId: "done" });
      return (await total(b)) > before;
    },
  },
  loan: {
    counted: AMOUNT,
    // A repayment is a debt it owes: made while frozen (outflows/release.ts).
    continues: evenFrozen(countedAtMaking),
    async make({ b }, caller) {
      const offer = await server.request("POST", "/lending/offers", { key: b.apiKey, body: { amount: AMOUNT, currency: USDC, interestRate: 0, durationDays: 30, collateralPercent: 0 } });
      const loan = await caller.call("POST", "/lending/borrow", { offerId: offer.body.id });
      expect(loan.body.status).toBe("ACTIVE");
      return loan.body;
    },
    async later({ b }, caller, loan) {
      const before = await total(b);
      await caller.call("POST", `/lending/repay/${loan.id}`, { amount: AMOUNT });
      return (await total(b)) > before;
    },
  },
  x402_payment: {
    // Nothing is counted until the resource has answered 402: the debit is the movement.
    counted: 0,
    continues: unlessFrozen((_, credential) => credential.kind === "agent_key"),
    async make(_, caller) {
      const waiting = new Promise<void>((resolve) => (reached = resolve));
      const reply = caller.call("POST", "/x402/pay", { url: `http://127.0.0.1:${gated.port}/resource`, maxAmount: 1 });
      await waiting;
      return { reply };
    },
    async later({ a }, _, inFlight: { reply: Promise<Reply> }) {
      const before = await total(a);
      opening!();
      const reply = await inFlight.reply;
      const debited = (await total(a)) < before;
      expect(ok(reply)).toBe(debited);
      if (!debited) expect(reply.body.error).toBeOneOf(["KEY_INACTIVE", "KEY_BUDGET_EXCEEDED", "AGENT_FROZEN"]);
      return debited;
    },
  },
  x402_sale: {
    counted: 0,
    // Money coming in: credited whatever became of the key that settled it.
    continues: () => true,
    notFor: (credential) => (credential.kind === "oauth_token" ? "an MCP host's token works at /mcp only, which has no facilitator tool" : null),
    async make({ a }, caller) {
      const payTo = getAddress((await server.request("GET", "/wallets/blockchain", { key: a.apiKey })).body.address) as Address;
      const buyer = privateKeyToAccount(generatePrivateKey());
      await x.mint(buyer.address, "1");
      const settled = await caller.call("POST", "/x402/facilitator/settle", await signedPayment(x, buyer, { to: payTo }));
      expect(settled.body).toMatchObject({ success: true });
      return settled.body;
    },
    async later({ a }) {
      // Confirmed (the ending may have let the watcher credit it already): credited once, for the price.
      await x.anvil.mine(1);
      await server.advance(1);
      const history = (await server.request("GET", "/wallets/history?limit=100", { key: a.apiKey })).body.data as { type: string; amount: number }[];
      const sales = history.filter((entry) => entry.type === "X402_SALE");
      return sales.length === 1 && sales[0]!.amount === PRICE;
    },
  },
  x402_channel: {
    // Opening the channel is the outflow: its deposit, held on the agent's balance until it closes.
    counted: DEPOSIT,
    // A voucher on it is paid from what was counted (a spent budget lets it), never for a frozen agent
    // or a key that ended; the channel of a key that ended is closed by the job, without the agent, and
    // the rest of its deposit comes back: money moves back, not out.
    continues: unlessFrozen(countedAtMaking),
    async make({ a }, caller) {
      const opened = await caller.call("POST", "/x402/pay", { url: `${batch.url}/paid`, maxAmount: 1 });
      expect(opened.body.channel).toMatchObject({ status: "OPEN", deposit: DEPOSIT, charged: PRICE });
      expect(await server.balance(a)).toEqual({ available: money(1_000 - DEPOSIT), held: money(DEPOSIT - PRICE) });
      return opened.body.channel;
    },
    async later({ a }, caller, channel: { id: string }, keyEnded) {
      await server.advance(1);
      const after = ((await server.request("GET", "/x402/channels", { key: a.apiKey })).body.data as { id: string }[]).find((row) => row.id === channel.id);
      if (keyEnded) {
        expect(after).toMatchObject({ status: "CLOSED", charged: PRICE, refunded: money(DEPOSIT - PRICE) });
        expect(await server.balance(a)).toEqual({ available: money(1_000 - PRICE), held: 0 });
      } else {
        expect(after).toMatchObject({ status: "OPEN", charged: PRICE });
      }
      // The next request with the credential: paid, if at all, over the same channel from its deposit.
      const before = await total(a);
      const reply = await caller.call("POST", "/x402/pay", { url: `${batch.url}/paid`, maxAmount: PRICE });
      const paid = (await total(a)) < before;
      if (paid) expect(reply.body.channel).toMatchObject({ id: channel.id, charged: money(2 * PRICE) });
      return paid;
    },
  },
};

// ---------------------------------------------------------------------------------------------------

test("every commitment kind and every credential kind has its rows", () => {
  expect(Object.keys(SCENARIOS).sort()).toEqual(Object.keys(COMMITMENTS).sort());
  expect([...new Set(CREDENTIALS.map((credential) => credential.kind))].sort()).toEqual([...CREDENTIAL_KINDS].sort());
});

for (const credential of CREDENTIALS) {
  describe(credential.name, () => {
    for (const [kind, scenario] of Object.entries(SCENARIOS) as [CommitmentKind, Scenario][]) {
      for (const ending of credential.endings) {
        const skip = scenario.notFor?.(credential);
        const name = `${kind}, then ${ending.replace("_", " ")}: ${scenario.continues(ending, credential) ? "it goes on" : "nothing more moves"}`;
        if (skip) {
          test.skip(`${name} (not applicable: ${skip})`, () => {});
          continue;
        }
        test(name, async () => {
          const a = await server.register();
          const b = await server.register();
          await server.deposit(a.id, 1_000, USDC);
          await server.deposit(b.id, 1_000, USDC);
          const ctx = { a, b, budget: ending === "overspent" ? TIGHT : ROOMY };
          const caller = await credential.make(ctx);
          const made = await scenario.make(ctx, caller);
          if (ending === "overspent") await caller.overspend(ctx.budget - scenario.counted);
          else if (ending === "frozen") expect((await server.request("POST", `/owner/agents/${a.id}/freeze`, { key: caller.ownerKey() })).body.frozen).toBe(true);
          else await caller.end(ending);
          expect(await scenario.later(ctx, caller, made, keyEnded(ending, credential))).toBe(scenario.continues(ending, credential));
          await expectLedgerOk(server);
        });
      }
    }
  });
}
