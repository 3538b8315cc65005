import { Elysia, t } from "elysia";
import { write } from "../db";
import { auth } from "../auth/macros";
import { Amount, Currency, docs, paged, PageQuery } from "../http/models";
import { mutation } from "../auth/mutation";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Loan, LoanOffer, LoanOfferPage, LoanPage } from "./model";
import { applyOfferDue, cancelOffer, createOffer, listOffers } from "./offers";
import { applyLoanDue, borrow, getLoan, myLoans, repay } from "./service";

const Id = t.String({ minLength: 1, maxLength: 64 });

export const lendingRoutes = new Elysia({ prefix: "/lending", name: "lending" })
  .use(auth)
  .post(
    "/offers",
    ({ agent, body, headers, request, set }) => mutation({ agentId: agent.id, headers, request, body, set }, 201, () => createOffer(agent.id, body)),
    {
      agent: true,
      body: t.Object({
        amount: Amount(),
        currency: Currency,
        interestRate: t.Number({ minimum: 0, maximum: 100, description: "flat percent over the whole term, at most 2 decimals" }),
        durationDays: t.Number({ minimum: 1, maximum: 365, multipleOf: 1 }),
        collateralPercent: t.Number({ minimum: 0, maximum: 200, description: "percent of the amount the borrower holds in escrow" }),
        expiresInHours: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 8760, description: "default 168" })),
      }),
      ...answers(docs("Lending", "Offer a loan; the amount is held in escrow until taken, cancelled or expired", "agent", [
        "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 201: LoanOffer, 202: Held }),
    },
  )
  .get(
    "/offers",
    ({ query }) => paged(query, (window) => listOffers({ currency: query.currency }, window)),
    {
      agent: true,
      query: t.Object({ ...PageQuery.properties, currency: t.Optional(Currency) }),
      ...answers(docs("Lending", "Open loan offers, newest first", "agent"), { 200: LoanOfferPage }),
    },
  )
  .delete("/offers/:offerId", async ({ agent, params }) => {
    await applyOfferDue(params.offerId);
    return write(() => cancelOffer(agent.id, params.offerId));
  }, {
    agent: true,
    params: t.Object({ offerId: Id }),
    ...answers(docs("Lending", "Cancel your open offer; the amount returns to you", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: LoanOffer }),
  })
  .post(
    "/borrow",
    async ({ agent, body, headers, request, set }) => {
      await applyOfferDue(body.offerId);
      return mutation({ agentId: agent.id, headers, request, body, set }, 200, () => borrow(agent.id, body));
    },
    {
      agent: true,
      body: t.Object({
        offerId: t.String({ minLength: 1, maxLength: 64 }),
        collateral: t.Optional(Amount({ description: "if given, must equal the offer's collateralRequired" })),
      }),
      ...answers(docs("Lending", "Take an offer: your collateral is held and the principal paid to you (an outflow of principal + interest to the lender)", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Loan, 202: Held }),
    },
  )
  .post(
    "/repay/:loanId",
    async ({ agent, params, body, headers, request, set }) => {
      await applyLoanDue(params.loanId);
      return mutation({ agentId: agent.id, headers, request, body, set }, 200, () => repay(agent.id, params.loanId, body.amount));
    },
    {
      agent: true,
      params: t.Object({ loanId: Id }),
      body: t.Object({ amount: Amount() }),
      ...answers(docs("Lending", "Repay part or all of a loan; full repayment returns the collateral", "agent", [
        "NOT_FOUND", "INVALID_STATE", "INSUFFICIENT_BALANCE", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Loan }),
    },
  )
  .get(
    "/my-loans",
    ({ agent, query }) => paged(query, (window) => myLoans(agent.id, { role: query.role }, window)),
    {
      agent: true,
      query: t.Object({ ...PageQuery.properties, role: t.Optional(t.Union([t.Literal("lender"), t.Literal("borrower")])) }),
      ...answers(docs("Lending", "Loans the caller made or took, newest first", "agent"), { 200: LoanPage }),
    },
  )
  .get("/loans/:loanId", ({ agent, params }) => getLoan(agent.id, params.loanId), {
    agent: true,
    params: t.Object({ loanId: Id }),
    ...answers(docs("Lending", "A loan the caller made or took", "agent", ["NOT_FOUND"]), { 200: Loan }),
  });
