// The 202 answer of an outflow held for the owner: every feature that moves money may answer it.
import { t } from "elysia";
import { Uuid } from "../http/models";
import { CurrencyCode, Enum, Model, Money, Timestamp } from "../http/responses";
import { OUTFLOW_KINDS } from "./approvals";

/** The 202 answer of an outflow held for the owner. */
export const Held = Model(
  {
    status: Enum(["AWAITING_APPROVAL"]),
    approvalId: Uuid,
    kind: Enum(OUTFLOW_KINDS),
    amount: Money(),
    currency: CurrencyCode,
    expiresAt: Timestamp("when the hold is released unless the owner approves"),
    message: t.String(),
  },
  {
    description:
      "The outflow is above the owner's approval amount: the amount is held in escrow until the owner approves (it is then made exactly as asked, and you get notification.financial approval.approved) or declines (approval.declined); after 24 h (or when the restricted key that asked ends first) it expires (approval.expired) and the hold is released.",
    examples: [
      {
        status: "AWAITING_APPROVAL",
        approvalId: "0198f3d0-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
        kind: "PAYMENT",
        amount: 4800,
        currency: "USDC",
        expiresAt: "2025-06-02T12:00:00.000Z",
        message: "4800 USDC is above your owner's approval amount: it is held until your owner approves or declines it (by 2025-06-02T12:00:00.000Z)",
      },
    ],
  },
);
