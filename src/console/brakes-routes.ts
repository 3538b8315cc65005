// The console's brakes (brakes.ts): freeze and unfreeze the agent, and stop what it committed to from the
// Activity page, each a confirmation page (GET) and its form (POST), through the door (door.ts) and the
// services the API uses (profile/freeze.ts setFrozen, cancelSubscription, cancelOffer, cancelBet).
import { Elysia, t } from "elysia";
import { freezeView } from "../agents/freeze";
import { invalid } from "../errors";
import { setFrozen } from "../profile/freeze";
import { brakeOutcome, confirmFreeze, confirmStop, confirmUnfreeze, STOPPABLE } from "./brakes";
import { consoleDoor, field, Form, redirect, type Signed, type Verbs } from "./door";

const MAX_REASON = 500;
const Stop = t.Object({
  kind: t.Union([t.Literal("subscription"), t.Literal("offer"), t.Literal("bet")]),
  id: t.String({ minLength: 1, maxLength: 80, pattern: "^[A-Za-z0-9_-]+$" }),
});
const ACTIVITY = { title: "Activity", path: "/console/activity" };
const FREEZE = { title: "Freeze the agent", path: "/console/freeze" };
const UNFREEZE = { title: "Unfreeze the agent", path: "/console" };

/** The owner's reason from the form: trimmed, null when left empty; longer than the record keeps is a 400. */
function reasonOf(body: unknown): string | null {
  const reason = field(body, "reason")?.trim() || null;
  if (reason !== null && reason.length > MAX_REASON) throw invalid(`the reason is at most ${MAX_REASON} characters`);
  return reason;
}

/** The freeze form (`frozen`) or the unfreeze form: the owner's brake on or off, then what is in force. */
const ownersBrake =
  (frozen: boolean) =>
  async ({ session, render, write, body }: Signed & Verbs & { body: unknown }) => {
    const state = await write(() => setFrozen(session.agentId, "owner", frozen, reasonOf(body)));
    return render(frozen ? "Frozen" : "Unfrozen", (frozen ? FREEZE : UNFREEZE).path, brakeOutcome(state, frozen));
  };

export const brakeRoutes = new Elysia({ name: "console-brakes" })
  .use(consoleDoor)
  .get("/freeze", ({ session, render }) => render("Freeze the agent", FREEZE.path, confirmFreeze(session.csrfToken)), { page: true, detail: { hide: true } })
  .post("/freeze", ownersBrake(true), { form: true, section: FREEZE, body: Form, detail: { hide: true } })
  .get("/unfreeze", async ({ session, render, read }) => render("Unfreeze the agent", UNFREEZE.path, confirmUnfreeze(await read(freezeView(session.agentId)), session.csrfToken)), {
    page: true,
    detail: { hide: true },
  })
  .post("/unfreeze", ownersBrake(false), { form: true, section: UNFREEZE, body: Form, detail: { hide: true } })
  .get(
    "/activity/:kind/:id",
    async ({ session, render, read, params, w }) => {
      await STOPPABLE[params.kind].due(params.id);
      const shown = await read(confirmStop(params.kind, session.agentId, params.id, session.csrfToken, w));
      return render(`${STOPPABLE[params.kind].verb}?`, ACTIVITY.path, shown);
    },
    { page: true, section: ACTIVITY, params: Stop, detail: { hide: true } },
  )
  .post(
    "/activity/:kind/:id",
    async ({ session, write, params }) => {
      const stoppable = STOPPABLE[params.kind];
      await stoppable.due(params.id);
      await write(() => stoppable.stop(session.agentId, params.id));
      return redirect(ACTIVITY.path);
    },
    { form: true, section: ACTIVITY, params: Stop, body: Form, detail: { hide: true } },
  );
