import { t } from "elysia";
import { AGENT_ID } from "../agents/model";
import { Uuid } from "../http/models";
import { Enum, Int, Model, Money, Nullable, Page, Timestamp } from "../http/responses";

const Address = (description: string) => t.String({ description: `${description} (0x...)` });

export const Withdrawal = Model(
  {
    id: Uuid,
    agentId: t.String({ format: "uuid" }),
    toAddress: Address("the destination, EIP-55 checksummed"),
    amount: Money("in USDC"),
    currency: Enum(["USDC"]),
    status: Enum(["PENDING", "SUBMITTED", "CONFIRMED", "FAILED"], {
      description: "PENDING (debited, not yet sent) → SUBMITTED (signed and broadcast) → CONFIRMED (receipt with enough confirmations) or FAILED (reverted or replaced; the amount is returned). To another agent's deposit address: CONFIRMED at once, inside the ledger",
    }),
    txHash: Nullable(t.String(), { description: "the transfer's transaction hash, once signed; null for an internal withdrawal" }),
    internalAgentId: Nullable(t.String({ format: "uuid" }), { description: "the agent whose deposit address received it, settled inside the ledger" }),
    error: Nullable(t.String(), { description: "why it FAILED" }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    description: "A USDC withdrawal to an address on the layer-2 chain",
    examples: [
      {
        id: "0198f401-8e9f-7a0b-8c1d-2e3f4a5b6c7d",
        agentId: AGENT_ID,
        toAddress: "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        amount: 50,
        currency: "USDC",
        status: "CONFIRMED",
        txHash: "0x8a3f0c1d2e4b5a6978c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2",
        internalAgentId: null,
        error: null,
        createdAt: "2025-06-01T13:00:00.000Z",
        updatedAt: "2025-06-01T13:00:20.000Z",
      },
    ],
  },
);

export const WithdrawalPage = Page(Withdrawal, "A page of the caller's withdrawals, newest first");

export const BlockchainWallet = Model(
  {
    address: Address("the caller's USDC deposit address"),
    network: Nullable(t.String(), { description: "the chain's name (e.g. base-sepolia, or eip155:<chainId>); null without a chain" }),
    chainId: Nullable(Int()),
    usdcContract: Nullable(t.String(), { description: "the USDC token contract (0x...)" }),
    onchainBalance: Nullable(t.Number(), { description: "the address's USDC on chain, in USDC; null when the chain is not configured or not reachable" }),
    status: Enum(["ok", "not_configured", "unreachable"], { description: "whether the chain could be read" }),
  },
  {
    description: "The caller's deposit address on the layer-2 chain and its live USDC balance",
    examples: [
      {
        address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        network: "base-sepolia",
        chainId: 84532,
        usdcContract: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        onchainBalance: 25,
        status: "ok",
      },
    ],
  },
);

export const ChainStatus = Model(
  {
    network: t.String(),
    chainId: Int(),
    usdcContract: t.String(),
    treasury: Model(
      {
        address: Address("the treasury"),
        usdc: Money("the treasury's USDC on chain"),
        gas: t.String({ description: "the treasury's native balance for gas, in ETH, as a decimal string" }),
      },
      { description: "The treasury that pays withdrawals and x402 payments" },
    ),
    chainWatcher: Model(
      {
        cursorBlock: Nullable(Int(), { description: "the last block scanned for deposits; null before the first scan" }),
        latestBlock: Int(),
        lagBlocks: Nullable(Int(), { description: "latestBlock − cursorBlock" }),
        confirmations: Int({ description: "blocks a transfer needs before it counts" }),
      },
      { description: "The deposit watcher's position" },
    ),
    withdrawalsInFlight: t.Array(Withdrawal, { description: "PENDING and SUBMITTED withdrawals, oldest first" }),
  },
  {
    description: "Treasury balances, deposit watcher position and withdrawals in flight",
    examples: [
      {
        network: "base-sepolia",
        chainId: 84532,
        usdcContract: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        treasury: { address: "0x9E1c3A5b7D9f1B3d5F7a9C1e3A5b7D9f1B3d5F7a", usdc: 10250.75, gas: "0.0421" },
        chainWatcher: { cursorBlock: 18250410, latestBlock: 18250413, lagBlocks: 3, confirmations: 3 },
        withdrawalsInFlight: [],
      },
    ],
  },
);

export const Acknowledgement = Model(
  {
    txHash: t.String({ description: "the transfer's transaction hash, lower case" }),
    logIndex: Int({ minimum: 0 }),
    acknowledged: t.String({ description: "the reason recorded" }),
  },
  {
    description: "A treasury transfer the operator explained; the chain reconciliation now counts it",
    examples: [
      { txHash: "0x3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c", logIndex: 12, acknowledged: "moved to cold storage" },
    ],
  },
);

const WITHDRAWAL_EXAMPLE = Withdrawal.examples![0] as Record<string, unknown>;

export const QueuedWithdrawal = Model(
  { ...Withdrawal.properties, ageSeconds: Int({ minimum: 0, description: "seconds since it was requested" }) },
  {
    description: "A withdrawal as the operator's queue shows it: with how long it has waited",
    examples: [{ ...WITHDRAWAL_EXAMPLE, status: "SUBMITTED", updatedAt: "2025-06-01T13:00:02.000Z", ageSeconds: 5400 }],
  },
);

export const QueuedWithdrawalPage = Page(QueuedWithdrawal, "A page of withdrawals across agents, oldest first");
