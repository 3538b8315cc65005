// Stopping without losing answers. On SIGTERM the service first drains: for DRAIN_MS every answer
// carries `Connection: close`, so each client that is still talking is told to reconnect after its
// answer instead of sending the next request down a connection that is about to close (which is how
// in-flight requests lost their answers to a reset). Then the listener stops, the requests still
// running are answered, and only then does the process exit. /health/ready answers 503 meanwhile.
import { Elysia } from "elysia";

const DRAIN_MS = 500;
let draining = false;

export const isDraining = () => draining;

export const lifecycle = new Elysia({ name: "lifecycle" }).onRequest(({ set }) => {
  if (draining) set.headers.connection = "close";
});

/** Starts the drain; resolves when clients have had DRAIN_MS to receive `Connection: close`. */
export async function drain(): Promise<void> {
  draining = true;
  await Bun.sleep(DRAIN_MS);
}
