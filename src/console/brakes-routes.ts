// The console's brakes (brakes.ts): freeze and unfreeze the agent, and stop what it committed to from the
// Activity page, each a confirmation page (GET) and its form (POST), through the door (door.ts) and the
// services the API uses (profile/freeze.ts setFrozen, cancelSubscription, cancelOffer, cancelBet).
import { Elysia, t } from "elysia";
import { freezeView } from "../agents/freeze";
import { read, write } from "../db";
import { invalid } from "../errors";
import { setFrozen } from "../profile/freeze";
import { brakeOutcome, confirmFreeze, confirmStop, confirmUnfreeze, STOPPABLE } from "./brakes";
import { action, field, Form, redirect, refusedAs, render, signedIn } from "./door";
import { writerFor } from "./views";

const MAX_REASON = 500;
const Stop = t.Object({
  kind: t.Union([t.Literal("subscription"), t.Literal("offer"), t.Literal("bet")]),
  id: t.String({ minLength: 1, maxLength: 80, pattern: "^[A-Za-z0-9_-]+$" }),
});

/** The owner's reason from the form: trimmed, null when left empty; longer than the record keeps is a 400. */
function reasonOf(body: unknown): string | null {
  const reason = field(body, "reason")?.trim() || null;
  if (reason !== null && reason.length > MAX_REASON) throw invalid(`the reason is at most ${MAX_REASON} characters`);
  return reason;
}

/** The freeze form (`frozen`) or the unfreeze form: the owner's brake on or off, then what is in force. */
const ownersBrake = (frozen: boolean) =>
  action((session, _request, body) =>
    refusedAs(session, frozen ? "Freeze the agent" : "Unfreeze the agent", frozen ? "/console/freeze" : "/console", async () => {
      const state = await write(() => setFrozen(session.agentId, "owner", frozen, reasonOf(body)));
      return render(session, frozen ? "Frozen" : "Unfrozen", frozen ? "/console/freeze" : "/console", brakeOutcome(state, frozen));
    }),
  );

export const brakeRoutes = new Elysia({ name: "console-brakes" })
  .get("/freeze", signedIn(async (session) => render(session, "Freeze the agent", "/console/freeze", confirmFreeze(session.csrfToken))), { detail: { hide: true } })
  .post("/freeze", ownersBrake(true), { body: Form, detail: { hide: true } })
  .get(
    "/unfreeze",
    signedIn(async (session) => render(session, "Unfreeze the agent", "/console", confirmUnfreeze(await read(freezeView(session.agentId)), session.csrfToken))),
    { detail: { hide: true } },
  )
  .post("/unfreeze", ownersBrake(false), { body: Form, detail: { hide: true } })
  .get(
    "/activity/:kind/:id",
    ({ request, params }) =>
      signedIn((session) =>
        refusedAs(session, "Activity", "/console/activity", async () => {
          await STOPPABLE[params.kind].due(params.id);
          const shown = await read(confirmStop(params.kind, session.agentId, params.id, session.csrfToken, writerFor(request)));
          return render(session, `${STOPPABLE[params.kind].verb}?`, "/console/activity", shown);
        }),
      )({ request }),
    { params: Stop, detail: { hide: true } },
  )
  .post(
    "/activity/:kind/:id",
    ({ request, params, body }) =>
      action((session) =>
        refusedAs(session, "Activity", "/console/activity", async () => {
          const stoppable = STOPPABLE[params.kind];
          await stoppable.due(params.id);
          await write(() => stoppable.stop(session.agentId, params.id));
          return redirect("/console/activity");
        }),
      )({ request, body }),
    { params: Stop, body: Form, detail: { hide: true } },
  );
