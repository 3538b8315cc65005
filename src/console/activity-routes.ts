// The console's Activity: loans, open offers, bets, bookings, contracts and subscriptions, each that the
// owner may stop with its link (brakes-routes.ts).
import { Elysia } from "elysia";
import { consoleDoor } from "./door";
import { activity } from "./pages";

export const activityRoutes = new Elysia({ name: "console-activity" })
  .use(consoleDoor)
  .get("/activity", async ({ session, render, w }) => render("Activity", "/console/activity", await activity(session.agentId, w)), { page: true, detail: { hide: true } });
