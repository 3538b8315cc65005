import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { Amount, Currency, docs, FreeForm, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Bet, BetPage } from "./model";
import { assertOracleCallable, ORACLE_TYPES, OUTCOMES } from "./oracles";
import { ACCEPT_BET_ERRORS, acceptBet, applyBetDue, cancelBet, CREATE_BET_ERRORS, createBet, expireDueBets, getBet, myBets, openBets, REPORT_OUTCOME_ERRORS, reportOutcome } from "./service";

export const BetIdParam = t.Object({ betId: t.String({ pattern: "^bet_[A-Za-z0-9_-]{1,64}$", description: "bet_..." }) });
export const OutcomeBody = t.Object({
  outcome: t.Union(OUTCOMES.map((outcome) => t.Literal(outcome)), { description: "MET (the creator wins), NOT_MET (the acceptor wins) or VOID (stakes back)" }),
});
const betDue = ({ params }: Due<"betId">) => applyBetDue(params.betId);

export const bettingRoutes = new Elysia({ prefix: "/betting", name: "betting" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => createBet(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      description: t.String({ minLength: 1, maxLength: 1000 }),
      condition: t.String({ minLength: 1, maxLength: 1000, description: "what the creator bets will happen" }),
      amount: Amount({ description: "each party's stake" }),
      currency: Currency,
      oracleType: t.Optional(t.Union(ORACLE_TYPES.map((type) => t.Literal(type)), { description: "MANUAL (default), API or ORACLE_NET" })),
      oracle: t.Optional(FreeForm({ description: "settings of an API or ORACLE_NET bet, stored as given", maxProperties: 5, maxDepth: 1, maxBytes: 4096 })),
      expiresInHours: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 720, description: "default 24" })),
    }),
    // The oracle URL is checked (resolved, public) when the bet is made, and again at each read.
    beforeHandle: ({ body }) => assertOracleCallable(body),
    ...answers(docs("Betting", "Create a bet; the stake is held in escrow until it is settled or expires", "agent", [...CREATE_BET_ERRORS, ...ONCE_ERRORS]), { 201: Bet, 202: Held }),
  })
  .get("/open", ({ agent, query, read }) => paged(query, (window) => read(openBets(agent.id, { currency: query.currency }, window))), {
    agent: true,
    query: t.Object({ ...PageQuery.properties, currency: t.Optional(Currency) }),
    ...answers(docs("Betting", "OPEN bets of other agents, newest first", "agent"), { 200: BetPage }),
  })
  .get("/my-bets", ({ agent, query, read }) => paged(query, (window) => read(myBets(agent.id, window))), {
    agent: true,
    query: PageQuery,
    due: ({ agent }: Due) => expireDueBets(agent.id),
    ...answers(docs("Betting", "Bets the caller created or accepted, newest first", "agent"), { 200: BetPage }),
  })
  .get("/:betId", ({ agent, params, read }) => read(getBet(agent.id, params.betId)), {
    agent: true,
    params: BetIdParam,
    due: betDue,
    ...answers(docs("Betting", "A bet: its parties see it always, others only while it is OPEN", "agent", ["NOT_FOUND"]), { 200: Bet }),
  })
  .delete("/:betId", ({ agent, params, write }) => write(() => cancelBet(agent.id, params.betId)), {
    agent: true,
    params: BetIdParam,
    due: betDue,
    ...answers(docs("Betting", "Withdraw your bet while nobody has accepted it: CANCELLED, the stake returns to you", "agent", ["NOT_FOUND", "INVALID_STATE"]), { 200: Bet }),
  })
  .post("/:betId/accept", ({ agent, params, once }) => once(() => acceptBet(agent.id, params.betId)), {
    agent: true,
    once: 200,
    params: BetIdParam,
    due: betDue,
    ...answers(docs("Betting", "Accept an OPEN bet: an equal stake is held from the caller", "agent", [...ACCEPT_BET_ERRORS, ...ONCE_ERRORS]), { 200: Bet, 202: Held }),
  })
  .post("/:betId/resolve", ({ agent, params, body, once }) => once(() => reportOutcome(agent.id, params.betId, body.outcome)), {
    agent: true,
    once: 200,
    params: BetIdParam,
    body: OutcomeBody,
    ...answers(
      docs("Betting", "Report the outcome as a party; equal reports settle the bet, different ones dispute it (conceding is refused while the reporter is frozen)", "agent", [
        ...REPORT_OUTCOME_ERRORS,
        ...ONCE_ERRORS,
      ]),
      { 200: Bet },
    ),
  });
