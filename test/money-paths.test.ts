// Every way money leaves an agent is an outflow (issue 22, finding 2). Borrowing commits the borrower
// to pay principal + interest to the lender, so it passes the tier limit and the owner's policy on that
// amount (held for the owner above the approval amount, with the collateral); repaying and defaulting
// settle it without a second check. The inventory below lists every call of the ledger's money
// functions in src/ with the check that guards it, and fails on a call site it does not list.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { dirname, join, relative } from "node:path";
import { OUTFLOW_KINDS } from "../src/outflows/kinds";
import { RELEASES } from "../src/outflows/release";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer()));
afterAll(() => server.close());

const USD = "USD";
const setPolicy = (agent: Agent, policy: Record<string, unknown>) => server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: policy });
const offer = async (lender: Agent, body: Record<string, unknown>) => {
  const made = await server.request("POST", "/lending/offers", { key: lender.apiKey, body: { currency: USD, durationDays: 30, ...body } });
  expect(made.status).toBe(201);
  return made.body as { id: string };
};
const borrow = (borrower: Agent, offerId: string) => server.request("POST", "/lending/borrow", { key: borrower.apiKey, body: { offerId } });
const repay = (borrower: Agent, loanId: string, amount: number) => server.request("POST", `/lending/repay/${loanId}`, { key: borrower.apiKey, body: { amount } });
const loansOf = async (agent: Agent) => (await server.request("GET", "/lending/my-loans?limit=100", { key: agent.apiKey })).body.data as any[];
const offerStatus = async (agent: Agent, offerId: string) =>
  ((await server.request("GET", "/lending/offers?limit=100", { key: agent.apiKey })).body.data as { id: string }[]).some((o) => o.id === offerId) ? "OPEN" : "NOT OPEN";
const approvals = async (agent: Agent) => (await server.request("GET", "/owner/approvals", { key: agent.ownerKey })).body;
const usd = (agent: Agent) => server.balance(agent, USD);

async function funded(amount = 1_000): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount, USD);
  return agent;
}

describe("borrowing is an outflow to the lender of principal + interest", () => {
  // The finding's owner: only P, at most 50 per transaction, above 20 held for approval.
  let p: Agent;
  let q: Agent;
  const ownersPolicy = () => ({ allowlist: [p.id], perTransaction: { USD: 50 }, approvalAbove: { USD: 20 } });
  beforeAll(async () => {
    p = await funded(10_000);
    q = await funded(10_000);
  });

  test("the finding's loan from Q: refused (403), nothing held, no loan to repay to Q or leave to default", async () => {
    const a = await funded();
    await setPolicy(a, ownersPolicy());
    const fromQ = await offer(q, { amount: 100, interestRate: 100, collateralPercent: 200 });
    const refused = await borrow(a, fromQ.id);
    expect(refused.status).toBe(403);
    // The tier is checked first: A is UNRATED and would owe 200 USD.
    expect(refused.body.error).toBe("TIER_LIMIT_EXCEEDED");
    // Within the tier and the cap, Q is still not on the allowlist.
    const smallFromQ = await offer(q, { amount: 40, interestRate: 25, collateralPercent: 200 });
    const notAllowed = await borrow(a, smallFromQ.id);
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body).toMatchObject({ error: "COUNTERPARTY_NOT_ALLOWED", details: { counterpartyId: q.id } });
    expect(await usd(a)).toEqual({ available: 1_000, held: 0 });
    expect(await loansOf(a)).toEqual([]);
    expect(await offerStatus(a, fromQ.id)).toBe("OPEN");
    expect(await offerStatus(a, smallFromQ.id)).toBe("OPEN");
    await expectLedgerOk(server);
  });

  test("principal + interest above the per-transaction cap: 403 POLICY_LIMIT_EXCEEDED on the amount due", async () => {
    const a = await funded();
    await setPolicy(a, ownersPolicy());
    const fromP = await offer(p, { amount: 60, interestRate: 50, collateralPercent: 200 });
    const refused = await borrow(a, fromP.id);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED", details: { currency: USD, window: "transaction", limit: 50, amount: 90 } });
    // A principal within the cap is refused too when what it owes is not: 40 at 50 % is 60.
    const owesMore = await offer(p, { amount: 40, interestRate: 50, collateralPercent: 0 });
    expect((await borrow(a, owesMore.id)).body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED", details: { amount: 60 } });
    expect(await usd(a)).toEqual({ available: 1_000, held: 0 });
    expect(await loansOf(a)).toEqual([]);
    await expectLedgerOk(server);
  });

  test("an UNRATED agent without a policy: principal + interest above the tier's 100 USD is 403 TIER_LIMIT_EXCEEDED", async () => {
    const a = await funded();
    const fromQ = await offer(q, { amount: 100, interestRate: 100, collateralPercent: 200 });
    const refused = await borrow(a, fromQ.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect(refused.body.message).toContain("200 USD");
    expect(await usd(a)).toEqual({ available: 1_000, held: 0 });
    // Owing exactly the tier's limit is allowed.
    const within = await offer(q, { amount: 50, interestRate: 100, collateralPercent: 200 });
    expect((await borrow(a, within.id)).status).toBe(200);
    expect(await usd(a)).toEqual({ available: 950, held: 100 });
    await expectLedgerOk(server);
  });

  test("above the approval amount: 202, the collateral held; approved, the loan is made and repaid without a second check", async () => {
    const a = await funded();
    await setPolicy(a, { ...ownersPolicy(), daily: { USD: 100 } });
    const fromP = await offer(p, { amount: 25, interestRate: 20, collateralPercent: 40 });
    const held = await borrow(a, fromP.id);
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", kind: "LOAN_BORROW", amount: 30, currency: USD });
    expect(held.body.message).toContain("10 USD of yours (its collateral) is held");
    // What waits is the collateral; the amount due counts against the 24 h cap.
    expect(await usd(a)).toEqual({ available: 990, held: 10 });
    expect((await server.request("GET", "/owner/policy", { key: a.ownerKey })).body.remainingToday).toEqual({ USD: 70 });
    expect(await loansOf(a)).toEqual([]);
    expect(await offerStatus(a, fromP.id)).toBe("OPEN");

    const listed = await approvals(a);
    expect(listed.data[0]).toMatchObject({ id: held.body.approvalId, kind: "LOAN_BORROW", status: "PENDING", amount: 30, counterpartyId: p.id, terms: { offerId: fromP.id } });
    const approved = await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: a.ownerKey, body: { termsHash: listed.data[0].termsHash } });
    expect(approved.body).toMatchObject({ status: "APPROVED", reason: null, result: { offerId: fromP.id, lenderId: p.id, principal: 25, amountDue: 30, collateral: 10, status: "ACTIVE" } });
    expect(await usd(a)).toEqual({ available: 1_015, held: 10 });
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: a.ownerKey })).status).toBe(409);
    expect(await loansOf(a)).toHaveLength(1);

    // The owner now allows nobody but Q and at most 1 per transaction: repaying the approved loan is
    // its settlement, not a new outflow, and is not checked again.
    await setPolicy(a, { allowlist: [q.id], perTransaction: { USD: 1 } });
    const loanId = approved.body.result.id;
    const repaid = await repay(a, loanId, 30);
    expect(repaid.status).toBe(200);
    expect(repaid.body).toMatchObject({ status: "REPAID", amountRepaid: 30 });
    expect(await usd(a)).toEqual({ available: 995, held: 0 });
    await expectLedgerOk(server);
  });

  test("an approved loan left to default hands the collateral to the lender without a second check", async () => {
    const a = await funded();
    await setPolicy(a, ownersPolicy());
    const before = await usd(p);
    const fromP = await offer(p, { amount: 20, interestRate: 50, collateralPercent: 150, durationDays: 1 });
    const held = await borrow(a, fromP.id);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", amount: 30 });
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: a.ownerKey })).body.status).toBe("APPROVED");
    await setPolicy(a, { allowlist: [q.id], perTransaction: { USD: 1 } });
    await server.advance(86_400 + 5);
    expect((await loansOf(a))[0]).toMatchObject({ status: "DEFAULTED", collateral: 30 });
    // A kept the principal (20) and lost the collateral (30); P lent 20 and got 30.
    expect(await usd(a)).toEqual({ available: 990, held: 0 });
    expect(await usd(p)).toEqual({ available: before.available + 10, held: before.held });
    await expectLedgerOk(server);
  });

  test("declined: the collateral is released, the 24 h usage given back, the offer still open", async () => {
    const a = await funded();
    await setPolicy(a, { ...ownersPolicy(), daily: { USD: 100 } });
    const fromP = await offer(p, { amount: 25, interestRate: 20, collateralPercent: 40 });
    const held = await borrow(a, fromP.id);
    expect(held.status).toBe(202);
    const declined = await server.request("POST", `/owner/approvals/${held.body.approvalId}/decline`, { key: a.ownerKey });
    expect(declined.body).toMatchObject({ status: "DECLINED", kind: "LOAN_BORROW" });
    expect(await usd(a)).toEqual({ available: 1_000, held: 0 });
    expect((await server.request("GET", "/owner/policy", { key: a.ownerKey })).body.remainingToday).toEqual({ USD: 100 });
    expect(await loansOf(a)).toEqual([]);
    expect(await offerStatus(a, fromP.id)).toBe("OPEN");
    await expectLedgerOk(server);
  });

  test("a held borrow without collateral holds nothing; approved, it is made; an offer taken meanwhile makes it FAILED", async () => {
    const a = await funded();
    await setPolicy(a, ownersPolicy());
    const bare = await offer(p, { amount: 30, interestRate: 0, collateralPercent: 0 });
    const held = await borrow(a, bare.id);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", amount: 30 });
    expect(await usd(a)).toEqual({ available: 1_000, held: 0 });
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: a.ownerKey })).body.status).toBe("APPROVED");
    expect(await usd(a)).toEqual({ available: 1_030, held: 0 });

    const contested = await offer(p, { amount: 30, interestRate: 0, collateralPercent: 50 });
    const waiting = await borrow(a, contested.id);
    expect(await usd(a)).toEqual({ available: 1_015, held: 15 });
    expect((await borrow(await funded(), contested.id)).status).toBe(200);
    const failed = await server.request("POST", `/owner/approvals/${waiting.body.approvalId}/approve`, { key: a.ownerKey });
    expect(failed.body).toMatchObject({ status: "FAILED" });
    expect(failed.body.reason).toStartWith("INVALID_STATE:");
    expect(await usd(a)).toEqual({ available: 1_030, held: 0 });
    await expectLedgerOk(server);
  });
});

// ---------------------------------------------------------------------------------------------------
// The inventory: every call of the ledger's money functions in src/ (outside src/ledger), by file and
// top-level function, with the calls in source order, and the check that guards it. A row whose check
// begins with `authorizeOutflow(KIND)` or `authorizeRelease(KIND)` is verified: that function (or the one
// named after "in") calls it with that kind before it moves the money. Both refuse a frozen agent before
// anything else (a release unless its kind pays a debt): the last tests check that, and which kinds.

/** The modules whose functions move money, and those functions. src/chain/ledger.ts: the chain's entries. */
const MONEY_FUNCTIONS: Record<string, string[]> = {
  "src/ledger/ledger.ts": ["post"],
  "src/ledger/transfers.ts": ["transfer", "deposit", "correct"],
  "src/ledger/escrow.ts": ["hold", "postHold", "postHoldInPart", "voidHold", "expireHold", "spendFromHold"],
  "src/chain/ledger.ts": ["debitWithdrawal", "settleWithdrawal", "returnWithdrawal"],
};

type Site = [site: string, moves: string, check: string];

const INVENTORY: Site[] = [
  // Outflows an agent starts: checked as they begin.
  ["src/payments/service.ts › pay", "transfer", "authorizeOutflow (kind from the caller: PAYMENT; SUBSCRIPTION, later charges with `standing`, which skips only the approval amount; BOOKING)"],
  ["src/x402/pay.ts › debit", "hold, post", "authorizeOutflow(X402): the agent's USDC into x402 in flight (exact), or its maximum into the agent's escrow (upto)"],
  ["src/x402/batch/pay.ts › open", "hold", "authorizeOutflow(X402): a batch-settlement channel's deposit into the agent's escrow (the treasury funds the channel on chain)"],
  ["src/chain/withdrawals.ts › requestWithdrawal", "debitWithdrawal", "authorizeOutflow(WITHDRAWAL): the agent's USDC into withdrawals in flight"],
  ["src/chain/withdrawals.ts › settleInternally", "transfer", "authorizeOutflow(WITHDRAWAL) in requestWithdrawal, its only caller (to another agent's deposit address)"],
  ["src/betting/service.ts › createBet", "hold", "authorizeOutflow(BET): the stake into the creator's escrow"],
  ["src/betting/service.ts › acceptBet", "hold", "authorizeOutflow(BET_ACCEPT): the stake into the acceptor's escrow"],
  ["src/lending/offers.ts › createOffer", "hold", "authorizeOutflow(LOAN_OFFER): the amount into the lender's escrow"],
  ["src/lending/service.ts › borrow", "hold, postHold", "authorizeOutflow(LOAN_BORROW) on principal + interest: the collateral into the borrower's escrow; the principal out of the lender's escrow (checked as LOAN_OFFER)"],
  ["src/contracts/service.ts › createContract", "hold", "authorizeOutflow(CONTRACT): the escrow into the creator's held account"],
  // Settlements of outflows checked when they began.
  ["src/x402/settlement.ts › settle", "postHoldInPart, post", "settles an x402 payment checked at debit (X402): used on chain, or (settleAsSale) settled in the ledger by agentbank's facilitator to the agent that sold the resource; upto: what the chain shows moved, out of the held maximum, the rest back to the agent"],
  ["src/x402/batch/channels.ts › charge", "spendFromHold", "settles a channel's deposit checked at open (X402): what the resource charged for a request, out of the hold"],
  ["src/x402/batch/channels.ts › closeChannelRow", "spendFromHold, post, voidHold", "settles a channel's deposit checked at open (X402): a claim on chain beyond the charges out of the hold, a claim below them back to the agent, the rest of the hold back"],
  ["src/chain/sender.ts › finish", "settleWithdrawal, returnWithdrawal", "settles a withdrawal checked at requestWithdrawal (WITHDRAWAL): out to the chain, or back to the agent"],
  // Settled by a request of the agent (a release, src/outflows/release.ts: refused while it is frozen
  // unless the release pays a debt), or by time, the operator or an oracle (never refused).
  ["src/betting/service.ts › settle", "voidHold, voidHold, postHold", "authorizeRelease(BET_CONCESSION) in reportOutcome, when the reporter concedes; the operator's and the oracle's resolutions settle it too: stakes checked at createBet (BET) and acceptBet (BET_ACCEPT), each back to its holder, or the loser's to the winner"],
  ["src/contracts/service.ts › fulfillCondition", "postHold", "authorizeRelease(CONTRACT_CONDITION): settles the escrow checked at createContract (CONTRACT), to the counterparty it named"],
  ["src/lending/service.ts › repay", "transfer, voidHold", "authorizeRelease(LOAN_REPAYMENT): settles the borrow checked at borrow (LOAN_BORROW on the whole amount due); the collateral back to the borrower"],
  ["src/lending/service.ts › defaultLoanIfDue", "postHold", "settles the borrow checked at borrow (LOAN_BORROW): the collateral to the lender"],
  // Money going back to the agent it came from.
  ["src/x402/settlement.ts › refund", "voidHold, post", "returns an x402 payment to the agent (upto: its held maximum)"],
  ["src/betting/service.ts › expire", "expireHold", "returns the creator's stake"],
  ["src/betting/service.ts › cancelBet", "voidHold", "returns the creator's stake (withdrawn untaken, by the agent or its owner)"],
  ["src/lending/offers.ts › expireOfferIfDue", "expireHold", "returns the lender's escrow"],
  ["src/lending/offers.ts › cancelOffer", "voidHold", "returns the lender's escrow"],
  ["src/contracts/service.ts › cancelContract", "voidHold", "returns the creator's escrow (cancelled unsigned)"],
  ["src/contracts/service.ts › applyDeadline", "expireHold", "returns the creator's escrow (expired unsigned, breached)"],
  ["src/outflows/approvals.ts › holdOutflow", "hold", "the agent's own money into its own escrow while the owner decides, after the checks (holdForApproval in src/outflows/check.ts)"],
  ["src/outflows/approvals.ts › giveBack", "expireHold, voidHold", "returns what an approval held, to the agent itself (EXPIRED with the approval, VOIDED otherwise)"],
  // Money from outside.
  ["src/wallets/deposits.ts › creditDeposit", "deposit", "deposit by the operator (admin key)"],
  ["src/wallets/corrections.ts › correctBalance", "correct", "the operator's correction (an operator key, recorded in the audit log): a compensating entry against the outside world, a debit at most what is available; not an outflow of the agent's, so a frozen agent is corrected too"],
  ["src/chain/watcher.ts › recordTransfer", "deposit", "deposit from chain (a Transfer log to the agent's address)"],
  ["src/chain/sales.ts › creditSale", "post", "deposit from chain: the watcher's Transfer log to the seller's own address, credited once as X402_SALE when it used an authorization the facilitator settled for that seller (never also as a deposit)"],
  // The chain's ledger entries: each function's callers are listed above.
  ["src/chain/ledger.ts › debitWithdrawal", "post", "the chain's entry; called by requestWithdrawal"],
  ["src/chain/ledger.ts › settleWithdrawal", "post", "the chain's entry; called by finish"],
  ["src/chain/ledger.ts › returnWithdrawal", "post", "the chain's entry; called by finish"],
];

const ROOT = join(import.meta.dir, "..");

/** Comments blanked out (same length, so positions hold): a call in a comment is not a call. */
const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, " ")).replace(/(^|[\s;,{}()])\/\/.*$/gm, (line, before: string) => before + " ".repeat(line.length - before.length));

/** Top-level declarations (functions, consts) with where they start. */
const declarationsOf = (text: string) =>
  [...text.matchAll(/^(?:export\s+)?(?:async\s+)?(?:function\*?\s*(\w+)|(?:const|let|class)\s+(\w+))/gm)].map((m) => ({ at: m.index!, name: (m[1] ?? m[2])! }));

type Source = { file: string; text: string };
type Call = { file: string; fn: string; callee: string; at: number };

async function sources(): Promise<Source[]> {
  const files = await Array.fromAsync(new Glob("src/**/*.ts").scan(ROOT));
  return Promise.all(files.sort().map(async (file) => ({ file, text: withoutComments(await Bun.file(join(ROOT, file)).text()) })));
}

/** Every call of a money function outside src/ledger, by the name it was imported under. */
function moneyCalls({ file, text }: Source): Call[] {
  if (file.startsWith("src/ledger/")) return [];
  const local = new Map<string, string>();
  for (const m of text.matchAll(/(import|export)\s*(type\s+)?(\{[^}]*\}|\*\s*as\s+\w+)\s*from\s*"(\.[^"]+)"/g)) {
    const module = relative(ROOT, join(ROOT, dirname(file), m[4]!)) + ".ts";
    const money = MONEY_FUNCTIONS[module];
    if (!money || m[2]) continue;
    if (m[3]!.startsWith("*") || m[1] === "export") throw new Error(`${file}: import the money functions of ${module} by name (this test follows named imports)`);
    for (const spec of m[3]!.slice(1, -1).split(",").map((part) => part.trim()).filter(Boolean)) {
      const [imported, as = imported] = spec.replace(/^type\s+/, "").split(/\s+as\s+/);
      if (money.includes(imported!)) local.set(as!, imported!);
    }
  }
  if (local.size === 0) return [];
  const declarations = declarationsOf(text);
  return [...text.matchAll(new RegExp(`(?<![\\w.$])(${[...local.keys()].join("|")})\\s*\\(`, "g"))].map((m) => ({
    file,
    fn: declarations.filter((declaration) => declaration.at < m.index!).at(-1)?.name ?? "(module)",
    callee: local.get(m[1]!)!,
    at: m.index!,
  }));
}

/** The text of a top-level function, from its declaration to the next one. */
function bodyOf(source: Source, fn: string): { text: string; at: number } | null {
  const declarations = declarationsOf(source.text);
  const index = declarations.findIndex((declaration) => declaration.name === fn);
  if (index < 0) return null;
  const at = declarations[index]!.at;
  return { text: source.text.slice(at, declarations[index + 1]?.at ?? source.text.length), at };
}

describe("inventory: every call that moves money is listed with its check", () => {
  test("the ledger modules export no money function the inventory does not know", async () => {
    for (const [module, known] of Object.entries(MONEY_FUNCTIONS)) {
      const source = { file: module, text: withoutComments(await Bun.file(join(ROOT, module)).text()) };
      const exported = [...source.text.matchAll(/^export function\*\s*(\w+)/gm)].map((m) => m[1]!);
      // A function moves money if it posts, or calls a function of the same module that does (a shared helper).
      const posting = new Set(["post"]);
      const functions = [...source.text.matchAll(/^(?:export\s+)?function\*\s*(\w+)/gm)].map((m) => m[1]!);
      for (let grew = true; grew; ) {
        grew = false;
        for (const fn of functions) {
          if (posting.has(fn) || ![...posting].some((callee) => new RegExp(`\\byield\\*\\s*${callee}\\(`).test(bodyOf(source, fn)!.text))) continue;
          posting.add(fn);
          grew = true;
        }
      }
      const moving = exported.filter((fn) => posting.has(fn));
      expect(moving.sort(), `${module}: a new money function? add it to MONEY_FUNCTIONS in test/money-paths.test.ts`).toEqual([...known].sort());
    }
  });

  test("every call site in src/ is in the table, with the same calls, and nothing stale", async () => {
    const found = new Map<string, string[]>();
    for (const source of await sources()) {
      for (const call of moneyCalls(source)) {
        const site = `${call.file} › ${call.fn}`;
        found.set(site, [...(found.get(site) ?? []), call.callee]);
      }
    }
    const listed = new Map(INVENTORY.map(([site, moves]) => [site, moves]));
    const unlisted = [...found].filter(([site, moves]) => listed.get(site) !== moves.join(", "));
    const advice = (site: string, moves: string[]) =>
      `  ["${site}", "${moves.join(", ")}", "authorizeOutflow(KIND) | settles … checked at … | returns … | deposit …"],`;
    expect(
      unlisted.map(([site, moves]) => advice(site, moves)),
      "Money moves at a call site test/money-paths.test.ts does not list (or with other calls). Add the row to INVENTORY " +
        "with the check that guards it: an outflow the agent starts must call authorizeOutflow() before the movement; " +
        "a settlement names the check that covered it.",
    ).toEqual([]);
    expect(INVENTORY.filter(([site]) => !found.has(site)).map(([site]) => site), "rows in INVENTORY no call site matches any more: remove them").toEqual([]);
  });

  test("only the ledger writes holds and accounts (a feature's SQL never moves escrow past it)", async () => {
    const writes = (await sources())
      .filter((source) => !source.file.startsWith("src/ledger/"))
      .flatMap((source) => [...source.text.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:holds|accounts|postings|journal_entries)\b/gi)].map((m) => `${source.file}: ${m[0]}`));
    expect(writes).toEqual([]);
  });

  test("each `authorizeOutflow(KIND)` and `authorizeRelease(KIND)` row: that function authorizes that kind before the money moves", async () => {
    const byFile = new Map((await sources()).map((source) => [source.file, source]));
    for (const [site, , check] of INVENTORY) {
      const claim = /^(authorizeOutflow|authorizeRelease)(?:\((\w+)\))?(?: in (\w+)\b)?/.exec(check);
      if (!claim) continue;
      const [, authorize, kind, caller] = claim as unknown as [string, string, string | undefined, string | undefined];
      const [file, fn] = site.split(" › ") as [string, string];
      const source = byFile.get(file)!;
      const firstMove = moneyCalls(source).find((call) => call.fn === fn)!;
      // Authorized in a caller: that caller authorizes before it calls this function.
      const where = caller ?? fn;
      const body = bodyOf(source, where)!;
      const moveAt = caller ? body.text.search(new RegExp(`(?<![\\w.$])${fn}\\s*\\(`)) : firstMove.at - body.at;
      const authorizeAt = body.text.indexOf(`${authorize}(`);
      expect(authorizeAt, `${site}: ${where} must call ${authorize}() before it moves money`).toBeGreaterThanOrEqual(0);
      expect(authorizeAt, `${site}: ${where} must call ${authorize}() before it moves money`).toBeLessThan(moveAt);
      if (kind) expect(body.text.slice(authorizeAt, authorizeAt + 200), `${site}: the outflow's kind`).toContain(`kind: "${kind}"`);
    }
  });

  // The brake (issue 33) sits in the one check beside the tier and the policy, and in the one check of a
  // release: every row above that claims authorizeOutflow or authorizeRelease refuses a frozen agent, and
  // test/freeze.test.ts drives every kind those rows claim (OUTFLOW_KINDS, RELEASES) against a frozen one.
  test("the brake comes first: authorizeOutflow refuses a frozen agent before the tier and the policy, authorizeRelease before the key", async () => {
    const check = { file: "src/outflows/check.ts", text: withoutComments(await Bun.file(join(ROOT, "src/outflows/check.ts")).text()) };
    const limits = bodyOf(check, "checkLimits")!.text;
    const frozenAt = limits.indexOf("assertNotFrozen(");
    expect(frozenAt, "checkLimits must call assertNotFrozen()").toBeGreaterThanOrEqual(0);
    for (const later of ["assertWithinTier(", "assertCounterparty(", "assertPerTransaction(", "assertDaily(", "chargeActingKey("]) expect(frozenAt, `assertNotFrozen() before ${later}`).toBeLessThan(limits.indexOf(later));
    // Every way through authorizeOutflow (granted, or not: counted, or held for the owner) runs checkLimits first.
    const authorize = bodyOf(check, "authorizeOutflow")!.text;
    const granted = authorize.slice(0, authorize.indexOf("return;"));
    expect(granted.indexOf("checkLimits(")).toBeGreaterThanOrEqual(0);
    expect(granted.indexOf("checkLimits(")).toBeLessThan(granted.indexOf("takeGrant("));
    const rest = authorize.slice(authorize.indexOf("return;"));
    for (const after of ["new Deferred", "countOutflow("]) expect(rest.indexOf("checkLimits(")).toBeLessThan(rest.indexOf(after));
    const held = bodyOf(check, "holdForApproval")!.text;
    expect(held.indexOf("checkLimits(")).toBeLessThan(held.indexOf("holdOutflow("));

    const release = { file: "src/outflows/release.ts", text: withoutComments(await Bun.file(join(ROOT, "src/outflows/release.ts")).text()) };
    const releaseBody = bodyOf(release, "authorizeRelease")!.text;
    expect(releaseBody).toMatch(/if \(!RELEASES\[release\.kind\]\.whileFrozen\) assertNotFrozen\(/);
    expect(releaseBody.indexOf("assertNotFrozen(")).toBeLessThan(releaseBody.indexOf("chargeKey("));
  });

  test("the kinds the inventory claims are the code's: every outflow kind and every release kind, and no other", () => {
    const outflowRows = INVENTORY.filter(([, , check]) => check.startsWith("authorizeOutflow"));
    const named = (kind: string) => outflowRows.some(([, , check]) => new RegExp(`\\b${kind}\\b`).test(check));
    expect(OUTFLOW_KINDS.filter((kind) => !named(kind)), "an outflow kind no row authorizes").toEqual([]);
    const claimed = (authorize: string) => INVENTORY.flatMap(([, , check]) => new RegExp(`^${authorize}\\((\\w+)\\)`).exec(check)?.[1] ?? []);
    expect(claimed("authorizeOutflow").filter((kind) => !(OUTFLOW_KINDS as readonly string[]).includes(kind))).toEqual([]);
    expect(claimed("authorizeRelease").sort()).toEqual(Object.keys(RELEASES).sort());
  });
});
