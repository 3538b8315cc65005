// The agentbank command line, run to its end as a child process on SQLite (DATABASE_URL cleared), with
// the test's environment and `env` on top.
import { join } from "node:path";

const MAIN = join(import.meta.dir, "../../src/main.ts");

export function cli(args: string[], env: Record<string, string>) {
  const result = Bun.spawnSync(["bun", "run", MAIN, ...args], { env: { ...process.env, DATABASE_URL: "", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}
