// Every POST that moves money or creates a resource runs through here: one write op, honouring
// Idempotency-Key (the stored answer is replayed with Idempotent-Replayed: true). An effect that is
// Deferred (an outflow held for the owner's approval) is replaced by its other op, under the same key.
import { actingAs, write, type Op } from "../db";
import { once, validateKey, type IdempotencyScope, type Outcome } from "../idempotency/idempotency";
import { actingKeysOf } from "./macros";
import { pathOf } from "../http/log";

/**
 * Thrown inside a write op that must not take effect now but be replaced by another: an outflow above
 * the owner's approval amount is held instead of sent. The op rolls back; whoever ran it runs
 * `instead` as a write op of its own (under the same Idempotency-Key) and answers `status`.
 */
export class Deferred extends Error {
  constructor(
    readonly status: number,
    readonly instead: () => Op<unknown>,
  ) {
    super("deferred");
  }
}

type Request = {
  agentId: string;
  headers: Record<string, string | undefined>;
  request: globalThis.Request;
  body?: unknown;
  set: { status?: number | string; headers: Record<string, unknown> };
};

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

export async function mutation<T>(req: Request, status: number, effect: () => Op<T>): Promise<T> {
  const key = req.headers["idempotency-key"];
  validateKey(key);
  const route = `${req.request.method} ${pathOf(req.request.url)}`;
  const outcome = await applyOnce({ agentId: req.agentId, ...actingKeysOf(req.request), key, route, body: req.body }, status, effect);
  req.set.status = outcome.status;
  if (outcome.replayed) req.set.headers["idempotent-replayed"] = "true";
  return outcome.body as T;
}
