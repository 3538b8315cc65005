// Every POST that moves money or creates a resource runs through here: one write op, honouring
// Idempotency-Key (the stored answer is replayed with Idempotent-Replayed: true).
import { write, type Query } from "../db";
import { once, validateKey } from "../idempotency/idempotency";
import { pathOf } from "./log";

type Request = {
  agentId: string;
  headers: Record<string, string | undefined>;
  request: globalThis.Request;
  body?: unknown;
  set: { status?: number | string; headers: Record<string, unknown> };
};

export async function mutation<T>(req: Request, status: number, effect: () => Query<T>): Promise<T> {
  const key = req.headers["idempotency-key"];
  validateKey(key);
  const route = `${req.request.method} ${pathOf(req.request.url)}`;
  const outcome = await write(() => once({ agentId: req.agentId, key, route, body: req.body }, status, effect));
  req.set.status = outcome.status;
  if (outcome.replayed) req.set.headers["idempotent-replayed"] = "true";
  return outcome.body as T;
}
