// The loop that sends what an outbox table holds (webhook events, mail), shared by their dispatchers.
// Woken after each commit that added something (and by a job, the backstop), it claims due items in a
// write op, at most `maxInFlight` in flight at a time, and sends each outside every transaction; a wake
// that comes during a claim claims again once that one is done. What a claim and a send are is the
// outbox's own (the claim is where instances sharing a PostgreSQL database keep off each other's items).
import { write, type Query } from "./db";
import { logLine } from "./http/log";

export type Dispatcher = {
  /** Claims what is due and starts sending it; returns at once. */
  wake(): void;
  /** Claims nothing more; waits up to `waitMs` for the sends in flight. */
  stop(waitMs?: number): Promise<void>;
  readonly stopped: boolean;
};

export function dispatcher<Item extends { id: string }>(what: string, maxInFlight: number, claim: (limit: number) => Query<Item[]>, send: (item: Item) => Promise<void>): Dispatcher {
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let claiming = false;
  let wokenWhileClaiming = false;
  const failed = (step: string) => (error: unknown) => logLine({ level: "warn", msg: `${what} ${step} failed`, error: String((error as Error)?.message ?? error) });

  function wake(): void {
    if (stopped || inFlight.size >= maxInFlight) return;
    if (claiming) {
      wokenWhileClaiming = true;
      return;
    }
    claiming = true;
    void (async () => {
      try {
        do {
          wokenWhileClaiming = false;
          const items = await write(() => claim(maxInFlight - inFlight.size));
          for (const item of items) {
            const sending = send(item)
              .catch(failed("send"))
              .finally(() => {
                inFlight.delete(item.id);
                wake();
              });
            inFlight.set(item.id, sending);
          }
        } while (wokenWhileClaiming && !stopped && inFlight.size < maxInFlight);
      } catch (error) {
        failed("claim")(error);
      } finally {
        claiming = false;
      }
    })();
  }

  return {
    wake,
    async stop(waitMs = 0) {
      stopped = true;
      if (waitMs > 0) await Promise.race([Promise.allSettled(inFlight.values()), Bun.sleep(waitMs)]);
    },
    get stopped() {
      return stopped;
    },
  };
}
