// A write op's answer "not this, that instead": authorizeOutflow throws it for an outflow above the
// owner's approval amount, which must be held for the owner rather than made. The op rolls back; the
// door (once.ts) runs `instead` as a write op of its own, under the same Idempotency-Key, and answers
// `status` (202); an orchestration that makes an outflow itself (x402/pay.ts) does the same.
import type { Op } from "../db";

export class Deferred extends Error {
  constructor(
    readonly status: number,
    readonly instead: () => Op<unknown>,
  ) {
    super("deferred");
  }
}
