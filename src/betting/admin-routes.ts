// The operator's bet resolution (CONTRACT.md §8), behind ADMIN_API_KEY like src/admin/routes.ts.
import { Elysia } from "elysia";
import { assertAdmin } from "../auth/keys";
import { write } from "../db";
import { docs } from "../http/models";
import { BetIdParam, OutcomeBody } from "./routes";
import { operatorResolve } from "./service";
import { answers } from "../http/responses";
import { Bet } from "./model";

export const betAdminRoutes = new Elysia({ prefix: "/admin", name: "betting-admin" })
  // "local": a scoped transform would also guard every route the app registers after this plugin.
  .onTransform({ as: "local" }, ({ headers }) => assertAdmin(headers.authorization))
  .post("/bets/:betId/resolve", ({ params, body }) => write(() => operatorResolve(params.betId, body.outcome)), {
    params: BetIdParam,
    body: OutcomeBody,
    ...answers(docs("Operator", "Settle a MATCHED or DISPUTED bet (and API/ORACLE_NET bets until their oracles are automatic)", "admin", [
      "NOT_FOUND", "INVALID_STATE",
    ]), { 200: Bet }),
  });
