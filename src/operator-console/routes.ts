// /operator: the operator console, signed in with an operator key (sign-in-routes.ts): agents found,
// frozen, credited and corrected (agents-routes.ts), and the service's state (status-routes.ts: failing
// webhooks, withdrawals, the chain, the ledger check, the audit log, the mail outbox). Every page and
// form goes through its door (door.ts); every action through the operator API's op, with its audit entry.
import { Elysia } from "elysia";
import { agentRoutes } from "./agents-routes";
import { signInRoutes } from "./sign-in-routes";
import { statusRoutes } from "./status-routes";
import { OPERATOR_PATH } from "./sessions";

export const operatorConsoleRoutes = new Elysia({ prefix: OPERATOR_PATH, name: "operator-console" }).use([signInRoutes, agentRoutes, statusRoutes]);
