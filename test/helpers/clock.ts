// The test clock moved across a deadline with no job run after the crossing, so that only the read or
// action a test makes next can apply what came due.
import type { TestServer } from "./server";

/**
 * Moves the test clock to just past `dueAt` (ms) without running any job after the crossing: the
 * clock is moved to just before it (the jobs that run then find nothing due) at the start of a 5 s
 * scheduler period, and real time carries it over. A test using it may wait up to 5 s.
 */
export async function crossWithoutJobs(server: TestServer, dueAt: number): Promise<void> {
  await Bun.sleep((5_300 - (Date.now() % 5_000)) % 5_000);
  const now = Date.parse(await server.advanceClock(0));
  await server.advanceClock((dueAt - now) / 1000 - 0.3);
  await Bun.sleep(500);
}
