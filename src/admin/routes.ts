// The operator API (CONTRACT.md §8), behind ADMIN_API_KEY.
import { dirname } from "node:path";
import { Elysia, t } from "elysia";
import { assertAdmin } from "../auth/keys";
import { getAgent, updateAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import { databaseKind, read, write } from "../db";
import { backupInChildProcess } from "../db/backup";
import { invalid, invalidState, notFound } from "../errors";
import { Amount, Currency, docs, IdParam, Uuid } from "../http/models";
import { uuid } from "../ids";
import { checkLedger } from "../ledger/check";
import { checkInFlight, reconcileChain } from "../reconciliation/service";
import { deposit } from "../ledger/transfers";
import { toMajor, toMinor } from "../money";
import { runAllJobs } from "../scheduler";
import { notifyFinancial } from "../webhooks/outbox";
import { answers } from "../http/responses";
import { ClockAdvanced, Deposit, LedgerCheck, RateLimit } from "./model";

function backupDocs() {
  const detail = docs("Operator", "A consistent copy of the SQLite database, taken while the service runs (the same as `agentbank backup`)", "admin", ["INVALID_STATE"]);
  const file = { description: "the SQLite database file", content: { "application/vnd.sqlite3": { schema: { type: "string", format: "binary" } } } };
  // The plugin's types know JSON schemas by $ref only; a binary answer is declared as OpenAPI spells it.
  return { ...detail, responses: { ...detail.responses, "200": file } as unknown as typeof detail.responses };
}

export const adminRoutes = new Elysia({ prefix: "/admin", name: "admin" })
  // In transform, before validation: without the key nothing about the route is revealed.
  .onTransform({ as: "local" }, ({ headers }) => assertAdmin(headers.authorization))
  .post(
    "/deposits",
    async ({ body, set }) => {
      const amount = toMinor(body.amount, body.currency);
      const id = uuid();
      await write(function* () {
        yield* getAgent(body.agentId);
        yield* deposit(body.agentId, amount, body.currency, { type: "deposit", id });
        yield* notifyFinancial(
          body.agentId,
          "deposit.credited",
          { depositId: id, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null },
          `Deposit credited: ${toMajor(amount, body.currency)} ${body.currency}`,
        );
      });
      set.status = 201;
      return { id, agentId: body.agentId, amount: toMajor(amount, body.currency), currency: body.currency, reference: body.reference ?? null, createdAt: iso(clock.nowMs()) };
    },
    {
      body: t.Object({ agentId: Uuid, amount: Amount(), currency: Currency, reference: t.Optional(t.String({ maxLength: 200 })) }),
      ...answers(docs("Operator", "Credit an agent with money from outside (fiat rails, tests)", "admin", ["NOT_FOUND"]), { 201: Deposit }),
    },
  )
  .put(
    "/agents/:id/rate-limit",
    async ({ params, body }) => {
      await write(function* () {
        yield* getAgent(params.id);
        yield* updateAgent(params.id, { rate_limit: body.limit });
      });
      return { agentId: params.id, rateLimit: body.limit, windowSeconds: config.rateLimitWindowSeconds };
    },
    {
      params: IdParam,
      body: t.Object({ limit: t.Integer({ minimum: 1, maximum: 1_000_000_000 }) }),
      ...answers(docs("Operator", "Set one agent's requests per rate-limit window", "admin", ["NOT_FOUND"]), { 200: RateLimit }),
    },
  )
  .get(
    "/backup",
    async () => {
      if (databaseKind() !== "sqlite") throw invalidState("the database is PostgreSQL: back it up with pg_dump or base backups (docs/operations.md)");
      const bytes = await backupInChildProcess(config.databasePath, dirname(config.databasePath));
      const name = `agentbank-${iso(Date.now()).replace(/[:.]/g, "-")}.db`;
      return new Response(bytes, { headers: { "content-type": "application/vnd.sqlite3", "content-disposition": `attachment; filename="${name}"` } });
    },
    { detail: backupDocs() },
  )
  .get(
    "/ledger/check",
    async () => {
      const ledger = await read(checkLedger(), true);
      const inFlight = await read(checkInFlight(), true);
      const chain = await reconcileChain();
      // A chain that cannot be read now is reported, not counted as a mismatch.
      return { ...ledger, ok: ledger.ok && inFlight.ok && chain.status !== "mismatch", inFlight, chain };
    },
    {
      ...answers(
        docs(
          "Operator",
          "Verify the ledger (balanced entries, balances equal postings, nothing negative, held balances equal pending holds), that money in flight equals the open x402 payments and withdrawals, and, with a chain, that the treasury's USDC on chain is what the ledger says it should be",
          "admin",
        ),
        { 200: LedgerCheck },
      ),
    },
  )
  .post(
    "/clock/advance",
    async ({ body }) => {
      if (!config.testClock) throw notFound("route");
      if (!Number.isFinite(body.seconds)) throw invalid("seconds must be finite");
      await write(() => clock.advance(body.seconds));
      await runAllJobs(true);
      return { now: iso(clock.nowMs()) };
    },
    {
      body: t.Object({ seconds: t.Number({ minimum: 0, maximum: 10 * 365 * 86400 }) }),
      ...answers(docs("Operator", "Move the test clock forward and run every job now due (TEST_CLOCK=true only)", "admin"), { 200: ClockAdvanced }),
    },
  );
