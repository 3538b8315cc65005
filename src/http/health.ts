// GET /health (liveness, the SPEC's health record, plus whether the database answers) and
// GET /health/ready (for orchestrators: 503 while the service drains for a stop, or without a database).
import { Elysia, t } from "elysia";
import { clock, iso } from "../clock";
import { databaseAnswers } from "../db";
import { PROTOCOL, VERSION } from "../version";
import { isDraining } from "./lifecycle";
import { noteError } from "./log";
import { docs } from "./models";
import { answers } from "./responses";

const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded")], { description: "ok when the database answers" }),
  protocol: t.String(),
  version: t.String(),
  timestamp: t.String({ format: "date-time" }),
  database: t.Union([t.Literal("ok"), t.Literal("unreachable")]),
});
const Ready = t.Object({ ready: t.Boolean(), reason: t.Union([t.String(), t.Null()]) });

export const healthRoutes = new Elysia({ name: "health" })
  .get(
    "/health",
    async ({ request, set }) => {
      const database = await databaseAnswers();
      if (!database) {
        set.status = 503;
        noteError(request, "NOT_READY", "the database does not answer");
      }
      return { status: database ? "ok" : "degraded", protocol: PROTOCOL, version: VERSION, timestamp: iso(clock.nowMs()), database: database ? "ok" : "unreachable" } as const;
    },
    answers(docs("Health", "Liveness and version; 503 when the database does not answer", "public"), { 200: Health, 503: Health }),
  )
  .get(
    "/health/ready",
    async ({ request, set }) => {
      const reason = isDraining() ? "stopping" : (await databaseAnswers()) ? null : "the database does not answer";
      if (reason) {
        set.status = 503;
        noteError(request, "NOT_READY", reason);
      }
      return { ready: reason === null, reason };
    },
    answers(docs("Health", "Readiness: 503 while the service stops or cannot reach its database", "public"), { 200: Ready, 503: Ready }),
  );
