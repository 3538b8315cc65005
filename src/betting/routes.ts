import { Elysia, t } from "elysia";
import { read, write } from "../db";
import { auth } from "../auth/macros";
import { Amount, Currency, docs, FreeForm, paged, PageQuery } from "../http/models";
import { mutation } from "../auth/mutation";
import { assertCallable } from "../net/outbound";
import { ORACLE_TYPES, OUTCOMES } from "./oracles";
import { acceptBet, applyBetDue, cancelBet, createBet, getBet, myBets, openBets, reportOutcome } from "./service";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Bet, BetPage } from "./model";

export const BetIdParam = t.Object({ betId: t.String({ pattern: "^bet_[A-Za-z0-9_-]{1,64}$", description: "bet_..." }) });
export const OutcomeBody = t.Object({
  outcome: t.Union(OUTCOMES.map((outcome) => t.Literal(outcome)), { description: "MET (the creator wins), NOT_MET (the acceptor wins) or VOID (stakes back)" }),
});

export const bettingRoutes = new Elysia({ prefix: "/betting", name: "betting" })
  .use(auth)
  .post(
    "",
    async ({ agent, body, headers, request, set }) => {
      // The oracle URL is checked (resolved, public) when the bet is made, and again at each read.
      if (body.oracleType === "API" && typeof body.oracle?.url === "string") await assertCallable(body.oracle.url, "oracle.url");
      return mutation({ agentId: agent.id, headers, request, body, set }, 201, () => createBet(agent.id, body));
    },
    {
      agent: true,
      body: t.Object({
        description: t.String({ minLength: 1, maxLength: 1000 }),
        condition: t.String({ minLength: 1, maxLength: 1000, description: "what the creator bets will happen" }),
        amount: Amount({ description: "each party's stake" }),
        currency: Currency,
        oracleType: t.Optional(t.Union(ORACLE_TYPES.map((type) => t.Literal(type)), { description: "MANUAL (default), API or ORACLE_NET" })),
        oracle: t.Optional(FreeForm({ description: "settings of an API or ORACLE_NET bet, stored as given", maxProperties: 5, maxDepth: 1, maxBytes: 4096 })),
        expiresInHours: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 720, description: "default 24" })),
      }),
      ...answers(docs("Betting", "Create a bet; the stake is held in escrow until it is settled or expires", "agent", [
        "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 201: Bet, 202: Held }),
    },
  )
  .get(
    "/open",
    ({ agent, query }) => paged(query, (window) => read(openBets(agent.id, { currency: query.currency }, window))),
    {
      agent: true,
      query: t.Object({ ...PageQuery.properties, currency: t.Optional(Currency) }),
      ...answers(docs("Betting", "OPEN bets of other agents, newest first", "agent"), { 200: BetPage }),
    },
  )
  .get(
    "/my-bets",
    ({ agent, query }) => paged(query, (window) => myBets(agent.id, window)),
    { agent: true, query: PageQuery, ...answers(docs("Betting", "Bets the caller created or accepted, newest first", "agent"), { 200: BetPage }) },
  )
  .get(
    "/:betId",
    ({ agent, params }) => getBet(agent.id, params.betId),
    { agent: true, params: BetIdParam, ...answers(docs("Betting", "A bet: its parties see it always, others only while it is OPEN", "agent", ["NOT_FOUND"]), { 200: Bet }) },
  )
  .delete(
    "/:betId",
    async ({ agent, params }) => {
      await applyBetDue(params.betId);
      return write(() => cancelBet(agent.id, params.betId));
    },
    {
      agent: true,
      params: BetIdParam,
      ...answers(docs("Betting", "Withdraw your bet while nobody has accepted it: CANCELLED, the stake returns to you", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: Bet }),
    },
  )
  .post(
    "/:betId/accept",
    async ({ agent, params, headers, request, set }) => {
      await applyBetDue(params.betId);
      return mutation({ agentId: agent.id, headers, request, set }, 200, () => acceptBet(agent.id, params.betId));
    },
    {
      agent: true,
      params: BetIdParam,
      ...answers(docs("Betting", "Accept an OPEN bet: an equal stake is held from the caller", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Bet, 202: Held }),
    },
  )
  .post(
    "/:betId/resolve",
    ({ agent, params, body, headers, request, set }) =>
      mutation({ agentId: agent.id, headers, request, body, set }, 200, () => reportOutcome(agent.id, params.betId, body.outcome)),
    {
      agent: true,
      params: BetIdParam,
      body: OutcomeBody,
      ...answers(docs("Betting", "Report the outcome as a party; equal reports settle the bet, different ones dispute it (conceding is refused while the reporter is frozen)", "agent", [
        "NOT_FOUND", "INVALID_STATE", "AGENT_FROZEN", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Bet }),
    },
  );
