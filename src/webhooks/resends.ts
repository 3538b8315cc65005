// How often failed deliveries may be sent again by hand. Every resend is an outbound request that the
// agent causes, so it is bounded per event (whichever of its deliveries is named: each attempt is a new
// delivery) and per agent, within a rolling hour of the service clock. Counted in memory, per
// instance, like the request rate limit: a restart forgets the counts, and N instances allow N × the
// bound.
import { clock } from "../clock";
import { ApiError } from "../errors";
import { HOUR_MS } from "../time";
import { type AgentId } from "../ids";

export const RESENDS_PER_EVENT_PER_HOUR = 5;
export const RESENDS_PER_AGENT_PER_HOUR = 60;
/** Past this many keys, those with no resend left in the hour are dropped. */
const SWEEP_ABOVE = 10_000;

/** `agent:<id>` or `event:<id>` → the service-clock times of its resends in the last hour, oldest first. */
const recent = new Map<string, number[]>();

function sweep(now: number): void {
  if (recent.size <= SWEEP_ABOVE) return;
  for (const [key, times] of recent) if (times.at(-1)! <= now - HOUR_MS) recent.delete(key);
}

/**
 * Counts one resend of `eventId` by `agentId`, or throws 429 RATE_LIMIT_EXCEEDED, with Retry-After
 * until the oldest resend of the bound it hit leaves the hour. Returns the undo, for a resend that is
 * refused after all (its write found the event on its way or delivered): only resends that go out count.
 */
export function countResend(agentId: AgentId, eventId: string): () => void {
  const now = clock.nowMs();
  const bounds = [
    { key: `agent:${agentId}`, limit: RESENDS_PER_AGENT_PER_HOUR, what: "failed deliveries sent again per hour" },
    { key: `event:${eventId}`, limit: RESENDS_PER_EVENT_PER_HOUR, what: "resends of one event per hour" },
  ].map((bound) => ({ ...bound, times: (recent.get(bound.key) ?? []).filter((at) => at > now - HOUR_MS) }));
  for (const { limit, what, times } of bounds) {
    if (times.length < limit) continue;
    const retryAfterSeconds = Math.max(1, Math.ceil((times[0]! + HOUR_MS - now) / 1000));
    throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${limit} ${what}: try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
  for (const { key, times } of bounds) recent.set(key, [...times, now]);
  sweep(now);
  return () => {
    for (const { key } of bounds) {
      const times = recent.get(key);
      const at = times?.lastIndexOf(now) ?? -1;
      if (at >= 0) times!.splice(at, 1);
    }
  };
}
