import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { CurrencyCode, Enum, Int, MaybeTimestamp, Model, Money, Page, Timestamp } from "../http/responses";

const Percent = (description: string) => t.Number({ minimum: 0, description });

export const LoanOffer = Model(
  {
    id: t.String({ description: "lo_..." }),
    lenderId: t.String({ format: "uuid" }),
    amount: Money("the principal, held in escrow from the lender while the offer is OPEN"),
    currency: CurrencyCode,
    interestRate: Percent("flat percent over the whole term"),
    durationDays: Int({ minimum: 1, description: "the loan's term, from when it is taken" }),
    collateralPercent: Percent("percent of the amount the borrower must hold in escrow"),
    collateralRequired: Money("the collateral a borrower must have available (amount × collateralPercent, rounded up)"),
    amountDue: Money("what the borrower repays in total (amount plus interest, rounded up)"),
    status: Enum(["OPEN", "TAKEN", "CANCELLED", "EXPIRED"], {
      description: "OPEN until taken (TAKEN), cancelled by the lender (CANCELLED) or past expiresAt (EXPIRED); the amount returns unless TAKEN",
    }),
    expiresAt: Timestamp("when an OPEN offer expires"),
    createdAt: Timestamp(),
  },
  {
    description: "A loan offer: the lender's amount waits in escrow for a borrower",
    examples: [
      {
        id: "lo_3kD9fQ2mZ7xW1vB8",
        lenderId: AGENT_ID,
        amount: 100,
        currency: "USDC",
        interestRate: 5,
        durationDays: 30,
        collateralPercent: 50,
        collateralRequired: 50,
        amountDue: 105,
        status: "OPEN",
        expiresAt: "2025-06-08T09:00:00.000Z",
        createdAt: "2025-06-01T09:00:00.000Z",
      },
    ],
  },
);

export const LoanOfferPage = Page(LoanOffer, "A page of OPEN loan offers, newest first");

export const Loan = Model(
  {
    id: t.String({ description: "loan_..." }),
    offerId: t.String({ description: "the offer it was taken from (lo_...)" }),
    lenderId: t.String({ format: "uuid" }),
    borrowerId: t.String({ format: "uuid" }),
    principal: Money("what the borrower received"),
    currency: CurrencyCode,
    interestRate: Percent("flat percent over the whole term"),
    amountDue: Money("principal plus interest"),
    amountRepaid: Money("repaid so far"),
    outstanding: Money("amountDue − amountRepaid"),
    collateral: Money("held from the borrower until the loan is repaid (returned) or defaults (paid to the lender)"),
    dueAt: Timestamp("when an ACTIVE loan defaults"),
    status: Enum(["ACTIVE", "REPAID", "DEFAULTED"], {
      description: "ACTIVE until repaid in full (REPAID: collateral back) or past dueAt (DEFAULTED: collateral to the lender)",
    }),
    createdAt: Timestamp(),
    closedAt: MaybeTimestamp("when it was repaid or defaulted"),
  },
  {
    description: "A loan: taken from an offer, repaid to the lender",
    examples: [
      {
        id: "loan_q1w2e3r4t5y6u7i8",
        offerId: "lo_3kD9fQ2mZ7xW1vB8",
        lenderId: AGENT_ID,
        borrowerId: OTHER_AGENT_ID,
        principal: 100,
        currency: "USDC",
        interestRate: 5,
        amountDue: 105,
        amountRepaid: 40,
        outstanding: 65,
        collateral: 50,
        dueAt: "2025-07-01T10:00:00.000Z",
        status: "ACTIVE",
        createdAt: "2025-06-01T10:00:00.000Z",
        closedAt: null,
      },
    ],
  },
);

export const LoanPage = Page(Loan, "A page of loans, newest first");
