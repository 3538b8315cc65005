import { Elysia, t, type Static } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { Amount, docs, FreeForm, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { NO_SANCTION } from "../outflows/check";
import { Held } from "../outflows/model";
import { X402Payment, X402PaymentPage, X402Result } from "./model";
import { PAY_RESOURCE_ERRORS, payResource } from "./pay";
import { listX402Payments } from "./payments";
import { decideIfPending, getX402Payment } from "./settlement";

export const x402Routes = new Elysia({ prefix: "/x402", name: "x402" })
  .use(door)
  .post(
    "/pay",
    // payResource answers { payment, resource } (fresh or replayed); Elysia checks it against X402Result.
    ({ agent, body, onceAcross }) => onceAcross<Static<typeof X402Result>>((scope) => payResource(agent.id, body, scope, NO_SANCTION)),
    {
      agent: true,
      once: 200,
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
          [...PAY_RESOURCE_ERRORS, ...ONCE_ERRORS],
        ),
        { 200: X402Result, 202: Held },
      ),
    },
  )
  .get("/payments", ({ agent, query, read }) => paged(query, (window) => read(listX402Payments(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("x402", "The caller's x402 payments, newest first", "agent"), { 200: X402PaymentPage }),
  })
  .get("/payments/:id", ({ agent, params, read }) => read(getX402Payment(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: ({ agent, params }: Due<"id">) => decideIfPending(agent.id, params.id),
    ...answers(docs("x402", "One of the caller's x402 payments, with its current status", "agent", ["NOT_FOUND"]), { 200: X402Payment }),
  });
