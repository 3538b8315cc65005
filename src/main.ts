// The agentbank executable. `agentbank` (or `agentbank serve`) runs the service: boot → jobs →
// listen; SIGTERM/SIGINT drain, stop accepting, answer what is in flight, stop the jobs, commit what
// is queued and close the database. `agentbank mcp` is the MCP server on stdio (src/mcp/stdio.ts).
import { createApp } from "./app";
import { boot } from "./boot";
import { closeDatabase } from "./db";
import { drain } from "./http/lifecycle";
import { flushLog } from "./http/log";
import { registerJobs } from "./jobs";
import { runMcpStdio } from "./mcp/stdio";
import { runAllJobs, startScheduler, stopScheduler } from "./scheduler";
import { VERSION } from "./version";
import { stopDispatcher } from "./webhooks/dispatcher";

const USAGE = `agentbank ${VERSION}
usage:
  agentbank [serve]                       run the service (configuration from the environment, see README)
  agentbank mcp [--url URL] [--key KEY]   MCP server on stdio for one agent: against a running agentbank at URL,
                                          or without --url on the local database (DATABASE_PATH); the key may
                                          also come from AGENTBANK_API_KEY, the URL from AGENTBANK_URL
  agentbank help                          this text`;

async function serve(): Promise<void> {
  const config = await boot();
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
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case undefined:
  case "serve":
    await serve();
    break;
  case "mcp":
    await runMcpStdio(args);
    break;
  case "help":
  case "--help":
  case "-h":
    console.log(USAGE);
    break;
  default:
    console.error(`agentbank: unknown command "${command}"\n${USAGE}`);
    process.exit(2);
}
