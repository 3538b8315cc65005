// /console: the human owner's side of its agents, one file of routes per page: signing in and claiming
// (sign-in-routes.ts), the Overview (overview-routes.ts: balances, history, the CSV export), Approvals
// (approvals-routes.ts: held outflows and negotiations, approve or decline, each after a confirmation
// that repeats the amount in words), Activity (activity-routes.ts), Policy (policy-routes.ts: the
// spending policy, edited), Webhooks (webhooks-routes.ts: deliveries, send a failed one again, rotate the
// signing secret), Keys (keys-routes.ts), the brakes (brakes-routes.ts: freeze the agent, stop what it
// committed to from Activity) and Notifications (notifications-routes.ts: the owner account's webhook
// and channels). Every action goes through the same services as the API; every page and form through
// the door (door.ts).
import { Elysia } from "elysia";
import { activityRoutes } from "./activity-routes";
import { approvalRoutes } from "./approvals-routes";
import { brakeRoutes } from "./brakes-routes";
import { keyRoutes } from "./keys-routes";
import { notificationRoutes } from "./notifications-routes";
import { overviewRoutes } from "./overview-routes";
import { policyRoutes } from "./policy-routes";
import { signInRoutes } from "./sign-in-routes";
import { webhookRoutes } from "./webhooks-routes";

// One `use` of the list: a chain of nine would make the app's type too deep for the checker (TS2589).
export const consoleRoutes = new Elysia({ prefix: "/console", name: "console" }).use([
  overviewRoutes,
  approvalRoutes,
  activityRoutes,
  policyRoutes,
  webhookRoutes,
  keyRoutes,
  signInRoutes,
  brakeRoutes,
  notificationRoutes,
]);
