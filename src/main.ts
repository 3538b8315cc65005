// Boot: config → database (migrations) → jobs → listen. SIGTERM/SIGINT: stop accepting, finish
// in-flight requests, stop the jobs, commit what is queued, close the database.
import { createApp } from "./app";
import { ChainStartError, initChain } from "./chain";
import { clock } from "./clock";
import { ConfigError, initConfig } from "./config";
import { closeDatabase, openDatabase } from "./db";
import { drain } from "./http/lifecycle";
import { flushLog } from "./http/log";
import { registerJobs } from "./jobs";
import { runAllJobs, startScheduler, stopScheduler } from "./scheduler";
import { VERSION } from "./version";
import { stopDispatcher } from "./webhooks/dispatcher";

let config;
try {
  config = initConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`agentbank: configuration error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

openDatabase(config.databasePath, config.dbSynchronous);
if (config.testClock) clock.restoreTestOffset();
try {
  await initChain();
} catch (error) {
  if (!(error instanceof ChainStartError)) throw error;
  console.error(`agentbank: chain error: ${error.message}`);
  process.exit(1);
}
registerJobs();
const app = createApp().listen({ port: config.port, hostname: config.host });
console.log(`agentbank ${VERSION} listening on http://${config.host}:${app.server!.port}`);
// Catch up on what came due while the service was down, then keep to the schedule.
void runAllJobs().then(startScheduler);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(JSON.stringify({ level: "info", msg: "shutting down", signal }));
  stopScheduler();
  await drain();
  // Stops listening; resolves once every request still running has been answered.
  await app.stop();
  stopDispatcher();
  await closeDatabase();
  flushLog();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
