import { Elysia, t } from "elysia";
import { auth } from "../http/auth";
import { Amount, docs } from "../http/models";
import { validateKey } from "../idempotency/idempotency";
import { payResource } from "./service";

export const x402Routes = new Elysia({ prefix: "/x402", name: "x402" })
  .use(auth)
  .post(
    "/pay",
    async ({ agent, body, headers, set }) => {
      const key = headers["idempotency-key"];
      validateKey(key);
      const outcome = await payResource(agent.id, body, { agentId: agent.id, key, route: "POST /x402/pay", body });
      set.status = outcome.status;
      if (outcome.replayed) set.headers["idempotent-replayed"] = "true";
      return outcome.body;
    },
    {
      agent: true,
      body: t.Object({
        url: t.String({ format: "uri", maxLength: 2048 }),
        method: t.Optional(t.Union(["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => t.Literal(method)), { default: "GET" })),
        headers: t.Optional(t.Record(t.String({ maxLength: 100 }), t.String({ maxLength: 4096 }), { maxProperties: 30 })),
        body: t.Optional(t.Any({ description: "sent as is when a string, as JSON otherwise" })),
        maxAmount: Amount({ description: "the most this call may pay, in USDC" }),
      }),
      detail: docs("x402", "Fetch an HTTP resource, paying its x402 (v1 or v2) \"exact\" USDC price up to maxAmount", "agent", [
        "INSUFFICIENT_BALANCE", "TIER_LIMIT_EXCEEDED", "CHAIN_UNAVAILABLE", "IDEMPOTENCY_KEY_REUSED",
      ]),
    },
  );
