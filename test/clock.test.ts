// The test clock (TEST_CLOCK=true): a move is one atomic increment of the offset the database holds,
// so concurrent moves all count — the first ones too, before the offset's row exists — and every
// instance sharing a PostgreSQL database reads the same time (issue 32).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type TestServer } from "./helpers/server";

const HOUR_S = 3600;
let instances: TestServer[] = [];

beforeAll(async () => {
  const first = await startServer();
  // On PostgreSQL a second instance joins the first one's database; SQLite's file has one process.
  instances = TEST_POSTGRES === undefined ? [first] : [first, await startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ADMIN_API_KEY: ADMIN_KEY } })];
});
afterAll(async () => {
  for (const instance of instances.slice(1)) await instance.close();
  await instances[0]?.close();
});

const nowOn = async (instance: TestServer) => Date.parse((await instance.request("GET", "/health")).body.timestamp);

describe("the test clock", () => {
  test("five concurrent first moves of an hour add up to five hours, and every instance tells the same time", async () => {
    const before = await nowOn(instances[0]!);
    // The offset's row does not exist yet: every move is a first one.
    const moved = await Promise.all(Array.from({ length: 5 }, (_, i) => instances[i % instances.length]!.advanceClock(HOUR_S)));
    const latest = Math.max(...moved.map(Date.parse));
    expect(latest - before).toBeGreaterThanOrEqual(5 * HOUR_S * 1000);
    // Real time passes between the reads; a lost move would be an hour or more.
    for (const instance of instances) {
      const now = await nowOn(instance);
      expect(now - before).toBeGreaterThanOrEqual(5 * HOUR_S * 1000);
      expect(now - before).toBeLessThan(6 * HOUR_S * 1000);
    }
    const [first, second] = await Promise.all(instances.map(nowOn));
    if (second !== undefined) expect(Math.abs(first! - second)).toBeLessThan(60_000);
    // Once more, now that the row exists: five more hours, on every instance.
    await Promise.all(Array.from({ length: 5 }, (_, i) => instances[i % instances.length]!.advanceClock(HOUR_S)));
    for (const instance of instances) {
      const now = await nowOn(instance);
      expect(now - before).toBeGreaterThanOrEqual(10 * HOUR_S * 1000);
      expect(now - before).toBeLessThan(11 * HOUR_S * 1000);
    }
  });
});
