// The agentbank executable. `agentbank` (or `agentbank serve`) runs the service: boot → jobs →
// listen; SIGTERM/SIGINT drain, stop accepting, answer what is in flight, stop the jobs, commit what
// is queued and close the database. `agentbank mcp` is the MCP server on stdio (src/mcp/stdio.ts);
// `agentbank backup|restore` copy the SQLite file (src/db/backup.ts).
import { createApp } from "./app";
import { boot, loadConfig } from "./boot";
import { closeDatabase, read } from "./db";
import { BackupError, backupSqlite, restoreSqlite } from "./db/backup";
import { checkLedger } from "./ledger/check";
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
  agentbank backup <file>                 write a consistent copy of the SQLite database (DATABASE_PATH) to <file>,
                                          while the service runs (PostgreSQL: use pg_dump, see docs/operations.md)
  agentbank restore <file>                put a backup in place of DATABASE_PATH (service stopped), apply the
                                          migrations and check the ledger
  agentbank help                          this text`;

async function serve(): Promise<void> {
  const config = await boot();
  registerJobs();
  const app = createApp().listen({ port: config.port, hostname: config.host });
  console.log(`agentbank ${VERSION} listening on http://${config.host}:${app.server!.port}`);
  // Catch up on what came due while the service was down, then keep to the schedule.
  void runAllJobs(true).then(startScheduler);

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

async function backupCommand(command: "backup" | "restore", args: string[]): Promise<void> {
  const config = loadConfig();
  const file = args[0];
  if (!file || args.length > 1) fail(`usage: agentbank ${command} <file>`, 2);
  if (config.databaseUrl) fail("DATABASE_URL is set: back PostgreSQL up with its own tools (pg_dump, base backups, PITR): see docs/operations.md", 2);
  process.umask(0o077);
  try {
    if (command === "backup") {
      const { bytes } = backupSqlite(config.databasePath, file);
      console.log(JSON.stringify({ backup: file, of: config.databasePath, bytes }));
      return;
    }
    restoreSqlite(file, config.databasePath);
  } catch (error) {
    if (error instanceof BackupError) fail(error.message, 1);
    throw error;
  }
  // The restored file is opened as the service would open it: migrations applied, then the ledger checked.
  await boot();
  const check = await read(checkLedger());
  await closeDatabase();
  console.log(JSON.stringify({ restored: file, into: config.databasePath, ledgerOk: check.ok, entries: check.entries, accounts: check.accounts }));
  if (!check.ok) process.exit(1);
}

function fail(message: string, code: number): never {
  console.error(`agentbank: ${message}`);
  process.exit(code);
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
  case "backup":
  case "restore":
    await backupCommand(command, args);
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
