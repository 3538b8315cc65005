// The operator's bet resolution (CONTRACT.md §8).
import { docs } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { BetIdParam, OutcomeBody } from "./routes";
import { operatorResolve } from "./service";
import { answers } from "../http/responses";
import { Bet } from "./model";

export const betAdminRoutes = operatorRoutes("betting-admin")
  .post("/bets/:betId/resolve", ({ params, body, write }) => write(() => operatorResolve(params.betId, body.outcome), params.betId), {
    action: "bet.resolve",
    params: BetIdParam,
    body: OutcomeBody,
    ...answers(docs("Operator", "Settle a MATCHED or DISPUTED bet (and API/ORACLE_NET bets until their oracles are automatic)", "admin", [
      "NOT_FOUND", "INVALID_STATE",
    ]), { 200: Bet }),
  });
