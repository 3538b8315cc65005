// The operator API (CONTRACT.md §8), behind ADMIN_API_KEY.
import { Elysia, t } from "elysia";
import { assertAdmin } from "../auth/keys";
import { getAgent } from "../agents/service";
import { clock, iso } from "../clock";
import { config } from "../config";
import { sqlite, write } from "../db";
import { invalid, notFound } from "../errors";
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

export const adminRoutes = new Elysia({ prefix: "/admin", name: "admin" })
  // In transform, before validation: without the key nothing about the route is revealed.
  .onTransform({ as: "local" }, ({ headers }) => assertAdmin(headers.authorization))
  .post(
    "/deposits",
    async ({ body, set }) => {
      const amount = toMinor(body.amount, body.currency);
      const id = uuid();
      await write(() => {
        getAgent(body.agentId);
        deposit(body.agentId, amount, body.currency, { type: "deposit", id });
        notifyFinancial(
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
      await write(() => {
        getAgent(params.id);
        sqlite.query("UPDATE agents SET rate_limit = ? WHERE id = ?").run(body.limit, params.id);
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
    "/ledger/check",
    async () => {
      const ledger = checkLedger();
      const inFlight = checkInFlight();
      const chain = await reconcileChain();
      // A chain that cannot be read now is reported, not counted as a mismatch.
      return { ...ledger, ok: ledger.ok && inFlight.ok && chain.status !== "mismatch", inFlight, chain };
    },
    {
      ...answers(
        docs(
          "Operator",
          "Verify the ledger (balanced entries, balances equal postings, nothing negative), that money in flight equals the open x402 payments and withdrawals, and, with a chain, that the treasury's USDC on chain is what the ledger says it should be",
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
      await runAllJobs();
      return { now: iso(clock.nowMs()) };
    },
    {
      body: t.Object({ seconds: t.Number({ minimum: 0, maximum: 10 * 365 * 86400 }) }),
      ...answers(docs("Operator", "Move the test clock forward and run every job now due (TEST_CLOCK=true only)", "admin"), { 200: ClockAdvanced }),
    },
  );
