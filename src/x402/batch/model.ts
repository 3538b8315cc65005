import { t } from "elysia";
import { Uuid } from "../../http/models";
import { Enum, Int, MaybeTimestamp, Model, Money, Nullable, Page, Timestamp } from "../../http/responses";

const CHANNEL_EXAMPLE = {
  id: "0198f410-3a4b-7c5d-8e6f-7a8b9c0d1e30",
  channelId: "0x3b9b7d71344ec209e4ddfaf0d86da8bed791eae5c600ea050fb5ecf283f5adea",
  url: "https://api.example.com/weather/paris",
  network: "eip155:84532",
  payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  receiverAuthorizer: "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
  withdrawDelaySeconds: 900,
  currency: "USDC",
  deposit: 0.05,
  charged: 0.02,
  signed: 0.03,
  remaining: 0.03,
  status: "OPEN",
  withdrawableAt: null,
  refunded: null,
  transaction: null,
  createdAt: "2025-06-01T14:00:00.000Z",
  updatedAt: "2025-06-01T14:00:09.000Z",
  closedAt: null,
};

const channelFields = {
  id: Uuid,
  channelId: t.String({ description: "the channel's id on chain (the EIP-712 hash of its config), 0x…" }),
  url: t.String({ description: "the resource the channel was opened for; closing asks it for the refund" }),
  network: t.String({ description: "the CAIP-2 network (eip155:<chain id>)" }),
  payTo: t.String({ description: "the seller's address (the channel's receiver)" }),
  receiverAuthorizer: t.String({ description: "the seller's authorizer, who may claim vouchers and sign refunds" }),
  withdrawDelaySeconds: Int({ description: "how long a withdrawal the treasury starts waits before it can be finalized" }),
  currency: Enum(["USDC"]),
  deposit: Money("what the treasury put in the channel for you, held on your balance until it closes"),
  charged: Money("what the resource charged so far, paid out of the deposit"),
  signed: Money("the highest cumulative voucher signed: the seller may claim up to it; at most one price above charged"),
  remaining: Money("deposit minus charged: still held, returned when the channel closes"),
  status: Enum(["OPEN", "CLOSING", "CLOSED"], {
    description:
      "OPEN: requests may use it; CLOSING: the seller did not refund, the treasury's withdrawal waits out the channel's delay (close again after withdrawableAt); CLOSED: the chain shows it emptied, the rest returned",
  }),
  withdrawableAt: MaybeTimestamp("CLOSING: from when the treasury's withdrawal can be finalized"),
  refunded: Nullable(Money(), { description: "what came back to your balance when it closed" }),
  transaction: Nullable(t.String(), { description: "the refund's transaction, once closed" }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  closedAt: MaybeTimestamp("when it closed"),
};

export const X402Channel = Model(channelFields, {
  description: "An x402 batch-settlement channel the treasury funds for you: its deposit is held on your balance, each request's charge is paid from it",
  examples: [CHANNEL_EXAMPLE],
});

export const X402ChannelPage = Page(X402Channel, "A page of your x402 batch-settlement channels, newest first");

export const X402ChannelPayment = Model(
  { ...channelFields, lastCharge: Money("what this request was charged (0 when the resource refused the voucher or failed)") },
  { description: "The channel a request was paid over, after it", examples: [{ ...CHANNEL_EXAMPLE, lastCharge: 0.01 }] },
);
