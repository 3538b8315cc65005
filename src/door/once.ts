// The once-only write: every route that moves money or creates a resource for an agent runs its op
// here, honouring Idempotency-Key (the stored answer is replayed with Idempotent-Replayed: true), acting
// for the key the request came with. An effect that is Deferred (an outflow held for the owner's
// approval) is replaced by its other op, under the same key.
import { t } from "elysia";
import { actingKeysOf, caller } from "../auth/callers";
import { actingAs, write, type Op } from "../db";
import type { ErrorCode } from "../errors";
import { pathOf } from "../http/log";
import { once, validateKey, type IdempotencyScope, type Outcome } from "../idempotency/idempotency";
import { Deferred } from "./deferred";

/** What a once-only route answers besides its command's errors: the key already used with another request. */
export const ONCE_ERRORS = ["IDEMPOTENCY_KEY_REUSED"] as const satisfies readonly ErrorCode[];

/**
 * The header a once-only route declares (so the OpenAPI document and MCP's tools show it). Its rule is
 * checked by validateKey, whose message names it, not by the schema.
 */
export const OnceHeaders = t.Object(
  {
    "idempotency-key": t.Optional(
      t.String({ description: "any unique string (1 to 255 visible ASCII characters, e.g. a UUID): a retry with the same key and request is applied once and replays the first answer" }),
    ),
  },
  { additionalProperties: true },
);

/**
 * Runs `effect` once per Idempotency-Key of the acting key (`scope.keyId`, the restricted key; null:
 * the agent key), acting for that key; a Deferred effect runs its replacement instead.
 */
export async function applyOnce(scope: IdempotencyScope, status: number, effect: () => Op<unknown>): Promise<Outcome> {
  try {
    return await write(() => actingAs(scope.keyId, once(scope, status, effect)));
  } catch (error) {
    if (!(error instanceof Deferred)) throw error;
    return write(() => actingAs(scope.keyId, once(scope, error.status, error.instead)));
  }
}

export type Knock = {
  headers: Record<string, string | undefined>;
  request: Request;
  body: unknown;
  set: { status?: number | string; headers: Record<string, unknown> };
};

/** Whose Idempotency-Keys a request's are: the agent, the key acting for it, the key whose keys they are. */
export type KeyHolder = Pick<IdempotencyScope, "agentId" | "keyId" | "scopeKeyId">;

/** Answers what `run` decided for this request's Idempotency-Key (the holder's): its status, and whether it was a replay. */
export async function answerOnce<T>(knock: Knock, holder: KeyHolder, run: (scope: IdempotencyScope) => Promise<Outcome>): Promise<T> {
  const key = knock.headers["idempotency-key"];
  validateKey(key);
  const { request } = knock;
  const outcome = await run({ ...holder, key, route: `${request.method} ${pathOf(request.url)}`, body: knock.body });
  knock.set.status = outcome.status;
  if (outcome.replayed) knock.set.headers["idempotent-replayed"] = "true";
  return outcome.body as T;
}

/** The caller's: its agent and the key it came with. */
const callerHolder = (request: Request): KeyHolder => ({ agentId: caller(request).agent.id, ...actingKeysOf(request) });

/**
 * The verbs of a route declared `once: status`: `once(op)` runs the op once per Idempotency-Key and
 * answers `status` (202 if it was held for the owner); `onceAcross(run)` is for the one command whose
 * work spans the network between its ops (POST /x402/pay), which keeps the key itself.
 */
export const onceVerbs = (status: number, knock: Knock) => ({
  once: <T>(effect: () => Op<T>) => answerOnce<T>(knock, callerHolder(knock.request), (scope) => applyOnce(scope, status, effect)),
  onceAcross: <T>(run: (scope: IdempotencyScope) => Promise<Outcome>) => answerOnce<T>(knock, callerHolder(knock.request), run),
});
