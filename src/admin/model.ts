import { t } from "elysia";
import { CurrencyCode, Enum, Int, Model, Money, Nullable, Timestamp } from "../http/responses";


export const ClockAdvanced = Model(
  { now: Timestamp("the test clock's time after the move") },
  { description: "The test clock moved forward; every job now due has run", examples: [{ now: "2025-06-08T08:00:00.000Z" }] },
);

const USDC = (description: string) => Money(`${description}, in USDC`);

const InFlight = Model(
  { ledger: USDC("the system account's balance"), openRecords: USDC("the sum of the open records") },
  { description: "Money in flight: the ledger's system account against the records still open" },
);

const Custody = Model(
  {
    ok: t.Boolean({ description: "no deposit address holds less USDC than was credited to it from the chain" }),
    onChain: Model(
      {
        treasury: USDC("the treasury's balance"),
        internalSigner: USDC("the internal settlement signer's balance (0 unless someone sent it USDC)"),
        depositAddresses: USDC("the sum of every deposit address's balance"),
        total: USDC("treasury + internalSigner + depositAddresses: everything agentbank holds on chain"),
      },
      { description: "USDC on chain at `block`" },
    ),
    owedToAgents: USDC("agents' available and held balances"),
    inFlight: Model(
      {
        x402: USDC("x402 payments debited from agents that had not left custody at `block`"),
        withdrawals: USDC("withdrawals debited from agents whose transfer was not in a block up to `block`"),
        total: USDC("x402 + withdrawals"),
      },
      { description: "Money debited from agents that, at `block`, was still on chain" },
    ),
    difference: USDC("onChain.total − owedToAgents − inFlight.total: the operator's float"),
    shortfall: USDC("what custody lacks to cover owedToAgents + inFlight (0 when it covers them); reported, not a failure: /admin/deposits credits USDC the chain never saw"),
    deposits: Model(
      {
        addresses: Int({ minimum: 0, description: "deposit addresses read" }),
        credited: USDC("what the chain watcher credited to them (deposits and facilitator sales) up to `block`"),
        read: Model(
          {
            via: Enum(["multicall3", "json-rpc-batch"], { description: "Multicall3 (one eth_call per 500 addresses) when the chain has it, else JSON-RPC batches of 100" }),
            requests: Int({ minimum: 1, description: "RPC requests the balances took, one after another" }),
          },
          { description: "How the balances were read" },
        ),
        withDifference: Int({ minimum: 0, description: "addresses whose balance differs from what was credited to them" }),
        differences: t.Array(
          Model(
            { agentId: t.String(), address: t.String(), onchainBalance: USDC("the balance at `block`"), credited: USDC("credited to it up to `block`"), difference: USDC("onchainBalance − credited; below 0 fails the check") },
            { description: "A deposit address whose balance is not what was credited to it (shortfalls first, at most 100)" },
          ),
        ),
      },
      { description: "Each deposit address holds what was credited to it (there is no sweep)" },
    ),
  },
  { description: "Total custody: what agentbank holds on chain against what the ledger owes, at the watcher's block" },
);

const ChainReconciled = Model(
  {
    status: Enum(["ok", "mismatch"], {
      description: "ok: the treasury's USDC on chain is what the ledger says, every transfer out is explained, none went to an agentbank address unacknowledged, and custody holds",
    }),
    block: Int({ description: "the block the check is made at (the chain watcher's position)" }),
    treasury: t.String({ description: "the treasury's address" }),
    onchainBalance: USDC("the treasury's balance at `block`"),
    expectedBalance: USDC("opening + fundedSinceOpening − withdrawnOnChain − x402Settled − movedByOperator"),
    difference: USDC("onchainBalance − expectedBalance"),
    opening: Model({ block: Int(), balance: USDC("the balance") }, { description: "where the reconciliation starts" }),
    fundedSinceOpening: USDC("what came into the treasury since the opening block"),
    withdrawnOnChain: USDC("withdrawals the ledger says left on chain"),
    x402Settled: USDC("x402 authorizations used on chain"),
    movedByOperator: USDC("transfers out the operator acknowledged"),
    unexplainedTransfers: t.Array(
      Model(
        { txHash: t.String(), logIndex: Int(), to: t.String(), amount: USDC("the amount") },
        { description: "A transfer out of the treasury that no withdrawal, x402 payment or acknowledgement explains" },
      ),
    ),
    missingTransfers: t.Array(
      Model(
        { kind: Enum(["withdrawal", "x402"]), id: t.String(), txHash: Nullable(t.String()), to: t.String(), amount: USDC("the amount") },
        { description: "A withdrawal or x402 payment the ledger counts as paid on chain without its transfer" },
      ),
    ),
    custodialTransfers: t.Array(
      Model(
        {
          txHash: t.String(),
          logIndex: Int(),
          to: t.String({ description: "the agentbank address it went to" }),
          agentId: Nullable(t.String(), { description: "the agent whose deposit address it is; null for the internal settlement signer" }),
          amount: USDC("the amount"),
          acknowledged: Nullable(t.String(), { description: "the operator's explanation (POST /admin/chain/acknowledge); unacknowledged, it fails the check" }),
        },
        { description: "A transfer of the treasury's USDC to one of agentbank's own addresses: never allowed" },
      ),
    ),
    custody: Custody,
    network: t.String({ description: "the network's name (base, base-sepolia, ...) or eip155:<chainId>" }),
    chainId: Int({ description: "the chain id" }),
  },
  { description: "The treasury reconciled with the chain" },
);

const ChainCheck = t.Union(
  [
    Model({ status: Enum(["not_configured", "not_started"]) }, { description: "No chain, or the watcher has not scanned yet" }),
    Model({ status: Enum(["unreachable"]), error: t.String() }, { description: "The chain could not be read now (not counted as a mismatch)" }),
    ChainReconciled,
  ],
  { description: "The chain reconciliation" },
);

export const LedgerCheck = Model(
  {
    ok: t.Boolean({ description: "every check passed (a chain that cannot be read now does not count against it)" }),
    entries: Int({ minimum: 0, description: "journal entries" }),
    postings: Int({ minimum: 0 }),
    accounts: Int({ minimum: 0 }),
    unbalancedEntries: t.Array(
      Model({ entryId: Int(), currency: CurrencyCode, sum: Money("what the entry's postings add up to") }, { description: "An entry whose postings do not sum to zero" }),
    ),
    mismatchedAccounts: t.Array(
      Model(
        {
          accountId: Int(),
          balance: t.String({ description: "the stored balance, in minor units" }),
          postings: t.String({ description: "the sum of its postings, in minor units" }),
        },
        { description: "An account whose balance or posting count differs from its postings" },
      ),
    ),
    negativeAccounts: t.Array(
      Model(
        { accountId: Int(), agentId: t.String(), kind: Enum(["available", "held"]), currency: CurrencyCode, balance: Money() },
        { description: "An agent account below zero" },
      ),
    ),
    postingsInWrongCurrency: Int({ minimum: 0 }),
    holds: Model(
      {
        ok: t.Boolean({ description: "every agent's held balance equals the sum of its pending holds" }),
        mismatches: t.Array(
          Model(
            { agentId: t.String(), currency: CurrencyCode, held: Money("the agent's held balance"), pendingHolds: Money("the sum of its PENDING holds") },
            { description: "An agent whose held balance in a currency differs from its pending holds" },
          ),
        ),
      },
      { description: "Escrow: each agent's held balance per currency is the sum of its pending holds" },
    ),
    totals: t.Array(
      Model(
        {
          currency: CurrencyCode,
          agentsAvailable: Money("what agents can spend"),
          agentsHeld: Money("what agents hold in escrow"),
          netInflow: Money("what came from outside minus what left (−system balances); equals agentsAvailable + agentsHeld when ok"),
        },
        { description: "Per currency: what agents hold and what the outside world put in" },
      ),
    ),
    inFlight: Model(
      { ok: t.Boolean(), x402: InFlight, withdrawals: InFlight },
      { description: "Money on its way out equals the open x402 payments and withdrawals" },
    ),
    x402Sales: Model(
      {
        ok: t.Boolean({ description: "every settled sale has its transfer and its one credit, and the treasury paid only gas" }),
        settledOnChain: Int({ minimum: 0, description: "sales settled by a transferWithAuthorization the treasury submitted" }),
        settledInLedger: Int({ minimum: 0, description: "sales of an agent to an agent (through /x402/pay), settled in the ledger with no transaction" }),
        awaitingCredit: Int({ minimum: 0, description: "sales submitted or mined whose transfer the chain watcher has not credited yet (not a mismatch)" }),
        mismatches: t.Array(Model({ saleId: t.String(), problem: t.String() }, { description: "A sale (x402_sales id) that does not reconcile, and why" })),
      },
      { description: "The x402 facilitator's sales against the chain and the ledger" },
    ),
    chain: ChainCheck,
  },
  {
    description: "The ledger's invariants, money in flight and the treasury on chain",
    examples: [
      {
        ok: true,
        entries: 1250,
        postings: 2731,
        accounts: 512,
        unbalancedEntries: [],
        mismatchedAccounts: [],
        negativeAccounts: [],
        postingsInWrongCurrency: 0,
        holds: { ok: true, mismatches: [] },
        totals: [
          { currency: "USDC", agentsAvailable: 10250.5, agentsHeld: 320, netInflow: 10570.5 },
          { currency: "EUR", agentsAvailable: 40, agentsHeld: 0, netInflow: 40 },
        ],
        inFlight: { ok: true, x402: { ledger: 0.02, openRecords: 0.02 }, withdrawals: { ledger: 50, openRecords: 50 } },
        x402Sales: { ok: true, settledOnChain: 12, settledInLedger: 3, awaitingCredit: 1, mismatches: [] },
        chain: { status: "not_configured" },
      },
    ],
  },
);
