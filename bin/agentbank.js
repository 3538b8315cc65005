#!/usr/bin/env node
// `bunx agentbank` / `npx agentbank` from an installed package. The service runs on Bun: under Bun this
// runs src/main.ts in this process; under Node it hands over to `bun` (signals and exit status passed
// through), or says that Bun is needed when there is none.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));

if (typeof Bun !== "undefined") {
  await import(main);
} else {
  const child = spawn("bun", [main, ...process.argv.slice(2)], { stdio: "inherit" });
  child.on("error", (error) => {
    if (error.code !== "ENOENT") throw error;
    console.error("agentbank: the service runs on Bun (https://bun.sh), which is not installed: `npm install -g bun`, then `bunx agentbank`");
    process.exit(1);
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
