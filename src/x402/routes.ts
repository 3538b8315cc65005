import { Elysia, t, type Static } from "elysia";
import { read } from "../db";
import { actingKeysOf, auth } from "../auth/macros";
import { Amount, docs, FreeForm, IdParam, paged, PageQuery } from "../http/models";
import { validateKey } from "../idempotency/idempotency";
import { payResource } from "./pay";
import { listX402Payments } from "./payments";
import { getX402Payment } from "./settlement";
import { answers } from "../http/responses";
import { NO_SANCTION } from "../outflows/check";
import { Held } from "../outflows/model";
import { X402Payment, X402PaymentPage, X402Result } from "./model";

export const x402Routes = new Elysia({ prefix: "/x402", name: "x402" })
  .use(auth)
  .post(
    "/pay",
    async ({ agent, body, headers, set, request }) => {
      const key = headers["idempotency-key"];
      validateKey(key);
      const outcome = await payResource(agent.id, body, { agentId: agent.id, ...actingKeysOf(request), key, route: "POST /x402/pay", body }, NO_SANCTION);
      set.status = outcome.status;
      if (outcome.replayed) set.headers["idempotent-replayed"] = "true";
      // payResource answers { payment, resource } (fresh or replayed); Elysia checks it against X402Result.
      return outcome.body as Static<typeof X402Result>;
    },
    {
      agent: true,
      body: t.Object({
        url: t.String({ format: "uri", maxLength: 2048 }),
        method: t.Optional(t.Union(["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => t.Literal(method)), { default: "GET" })),
        headers: t.Optional(t.Record(t.String({ maxLength: 100 }), t.String({ maxLength: 4096 }), { maxProperties: 30 })),
        body: t.Optional(FreeForm<unknown>({ description: "sent as is when a string, as JSON otherwise", anyJson: true, maxDepth: 32, maxBytes: 256 * 1024 })),
        maxAmount: Amount({ description: "the most this call may pay, in USDC" }),
      }),
      ...answers(
        docs(
          "x402",
          "Fetch an HTTP resource, paying its x402 (v1 or v2) \"exact\" USDC price up to maxAmount. The payment is PENDING until the chain shows the authorization used (SETTLED) or expired unused (REFUNDED)",
          "agent",
          ["INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "FORBIDDEN", "CHAIN_UNAVAILABLE", "IDEMPOTENCY_KEY_REUSED"],
        ),
        { 200: X402Result, 202: Held },
      ),
    },
  )
  .get("/payments", ({ agent, query }) => paged(query, (window) => read(listX402Payments(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("x402", "The caller's x402 payments, newest first", "agent"), { 200: X402PaymentPage }),
  })
  .get("/payments/:id", ({ agent, params }) => getX402Payment(agent.id, params.id), {
    agent: true,
    params: IdParam,
    ...answers(docs("x402", "One of the caller's x402 payments, with its current status", "agent", ["NOT_FOUND"]), { 200: X402Payment }),
  });
