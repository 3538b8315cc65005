import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { Amount, Currency, docs, LoanIdRef, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Loan, LoanOffer, LoanOfferPage, LoanPage } from "./model";
import { applyOfferDue, cancelOffer, CREATE_OFFER_ERRORS, createOffer, listOffers } from "./offers";
import { applyLoanDue, borrow, BORROW_ERRORS, defaultDueLoans, getLoan, myLoans, repay, REPAY_ERRORS } from "./service";
import { type LoanId } from "../ids";

const Id = t.String({ minLength: 1, maxLength: 64 });

export const lendingRoutes = new Elysia({ prefix: "/lending", name: "lending" })
  .use(door)
  .post("/offers", ({ agent, body, once }) => once(() => createOffer(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      amount: Amount(),
      currency: Currency,
      interestRate: t.Number({ minimum: 0, maximum: 100, description: "flat percent over the whole term, at most 2 decimals" }),
      durationDays: t.Number({ minimum: 1, maximum: 365, multipleOf: 1 }),
      collateralPercent: t.Number({ minimum: 0, maximum: 200, description: "percent of the amount the borrower holds in escrow" }),
      expiresInHours: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 8760, description: "default 168" })),
    }),
    ...answers(docs("Lending", "Offer a loan; the amount is held in escrow until taken, cancelled or expired", "agent", [...CREATE_OFFER_ERRORS, ...ONCE_ERRORS]), {
      201: LoanOffer,
      202: Held,
    }),
  })
  .get("/offers", ({ query, read }) => paged(query, (window) => read(listOffers({ currency: query.currency }, window))), {
    agent: true,
    query: t.Object({ ...PageQuery.properties, currency: t.Optional(Currency) }),
    ...answers(docs("Lending", "Open loan offers, newest first", "agent"), { 200: LoanOfferPage }),
  })
  .delete("/offers/:offerId", ({ agent, params, write }) => write(() => cancelOffer(agent.id, params.offerId)), {
    agent: true,
    params: t.Object({ offerId: Id }),
    due: ({ params }: Due<"offerId">) => applyOfferDue(params.offerId),
    ...answers(docs("Lending", "Cancel your open offer; the amount returns to you", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: LoanOffer }),
  })
  .post("/borrow", ({ agent, body, once }) => once(() => borrow(agent.id, body)), {
    agent: true,
    once: 200,
    body: t.Object({
      offerId: t.String({ minLength: 1, maxLength: 64 }),
      collateral: t.Optional(Amount({ description: "if given, must equal the offer's collateralRequired" })),
    }),
    due: ({ body }: Due) => applyOfferDue(String(body.offerId)),
    ...answers(
      docs("Lending", "Take an offer: your collateral is held and the principal paid to you (an outflow of principal + interest to the lender)", "agent", [...BORROW_ERRORS, ...ONCE_ERRORS]),
      { 200: Loan, 202: Held },
    ),
  })
  .post("/repay/:loanId", ({ agent, params, body, once }) => once(() => repay(agent.id, params.loanId, body.amount)), {
    agent: true,
    once: 200,
    params: t.Object({ loanId: LoanIdRef() }),
    body: t.Object({ amount: Amount() }),
    due: ({ params }: Due<{ loanId: LoanId }>) => applyLoanDue(params.loanId),
    ...answers(docs("Lending", "Repay part or all of a loan; full repayment returns the collateral", "agent", [...REPAY_ERRORS, ...ONCE_ERRORS]), { 200: Loan }),
  })
  .get("/my-loans", ({ agent, query, read }) => paged(query, (window) => read(myLoans(agent.id, { role: query.role }, window))), {
    agent: true,
    query: t.Object({ ...PageQuery.properties, role: t.Optional(t.Union([t.Literal("lender"), t.Literal("borrower")])) }),
    due: ({ agent }: Due) => defaultDueLoans(agent.id),
    ...answers(docs("Lending", "Loans the caller made or took, newest first", "agent"), { 200: LoanPage }),
  })
  .get("/loans/:loanId", ({ agent, params, read }) => read(getLoan(agent.id, params.loanId)), {
    agent: true,
    params: t.Object({ loanId: LoanIdRef() }),
    due: ({ params }: Due<{ loanId: LoanId }>) => applyLoanDue(params.loanId),
    ...answers(docs("Lending", "A loan the caller made or took", "agent", ["NOT_FOUND"]), { 200: Loan }),
  });
