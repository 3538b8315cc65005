// The project's own tests run on the harness the package exports (src/testing.ts), with a fixed
// operator key and the names the suite grew up with.
import { startAgentbank, type Reply, type StartOptions, type TestAgent } from "../../src/testing";

export const ADMIN_KEY = "test-admin-key";
export type Agent = TestAgent;
export type { Reply };
export type TestServer = Awaited<ReturnType<typeof startServer>>;

/** PostgreSQL to run the suite on (TEST_DATABASE_URL, set by `bun run test:postgres`); SQLite otherwise. */
export const TEST_POSTGRES = process.env.TEST_DATABASE_URL || undefined;

export async function startServer(options: StartOptions = {}) {
  const bank = await startAgentbank({ postgres: TEST_POSTGRES, ...options, env: { ADMIN_API_KEY: ADMIN_KEY, ...options.env } });
  return Object.assign(bank, {
    deposit: bank.fund,
    ledgerCheck: bank.checkLedger,
    advance: async (seconds: number): Promise<void> => {
      await bank.advanceClock(seconds);
    },
  });
}
