// The operator's routes about the service as a whole (CONTRACT.md §8): a backup of the SQLite file, the
// check of every invariant (the ledger, money in flight, the chain), and moving the test clock. Each
// feature's own /admin routes are its admin-routes.ts.
import { dirname } from "node:path";
import { t } from "elysia";
import { clock, iso } from "../clock";
import { config } from "../config";
import { databaseKind } from "../db";
import { backupInChildProcess } from "../db/backup";
import { invalid, invalidState, notFound } from "../errors";
import { docs } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { checkEverything } from "./check";
import { runAllJobs } from "../scheduler";
import { ClockAdvanced, LedgerCheck } from "./model";

function backupDocs() {
  const detail = docs("Operator", "A consistent copy of the SQLite database, taken while the service runs (the same as `agentbank backup`)", "admin", ["INVALID_STATE"]);
  const file = { description: "the SQLite database file", content: { "application/vnd.sqlite3": { schema: { type: "string", format: "binary" } } } };
  // The plugin's types know JSON schemas by $ref only; a binary answer is declared as OpenAPI spells it.
  return { ...detail, responses: { ...detail.responses, "200": file } as unknown as typeof detail.responses };
}

export const adminRoutes = operatorRoutes("admin")
  .get(
    "/backup",
    async ({ audit }) => {
      if (databaseKind() !== "sqlite") throw invalidState("the database is PostgreSQL: back it up with pg_dump or base backups (docs/operations.md)");
      const bytes = await backupInChildProcess(config.databasePath, dirname(config.databasePath));
      const name = `agentbank-${iso(Date.now()).replace(/[:.]/g, "-")}.db`;
      // Recorded once the copy exists, before it is handed out: no copy leaves unrecorded.
      await audit(name);
      return new Response(bytes, { headers: { "content-type": "application/vnd.sqlite3", "content-disposition": `attachment; filename="${name}"` } });
    },
    { action: "backup.take", detail: backupDocs() },
  )
  .get(
    "/ledger/check",
    () => checkEverything(),
    {
      ...answers(
        docs(
          "Operator",
          "Verify the ledger (balanced entries, balances equal postings, nothing negative, held balances equal pending holds), that money in flight equals the open x402 payments and withdrawals, that every x402 sale the facilitator settled has its transfer and its one credit, and, with a chain, that the treasury's USDC on chain is what the ledger says it should be, that none of it went to an agentbank address, and total custody (treasury and deposit addresses) against what agents are owed",
          "admin",
        ),
        { 200: LedgerCheck },
      ),
    },
  )
  .post(
    "/clock/advance",
    async ({ body, write }) => {
      if (!config.testClock) throw notFound("route");
      if (!Number.isFinite(body.seconds)) throw invalid("seconds must be finite");
      await write(() => clock.advance(body.seconds));
      await runAllJobs(true);
      return { now: iso(clock.nowMs()) };
    },
    {
      action: "clock.advance",
      body: t.Object({ seconds: t.Number({ minimum: 0, maximum: 10 * 365 * 86400 }) }),
      ...answers(docs("Operator", "Move the test clock forward and run every job now due (TEST_CLOCK=true only)", "admin"), { 200: ClockAdvanced }),
    },
  );
