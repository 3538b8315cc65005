// The agentbank executable: `agentbank [serve]` runs the service, `agentbank dev` a development start,
// `agentbank mcp` the MCP server on stdio (src/cli/mcp-stdio.ts), `agentbank backup|restore` copy the SQLite
// file (src/db/backup.ts), `agentbank keys encrypt` encrypts the master mnemonic (src/cli/keys.ts). src/cli/commands.ts lists them with their options and prints the help.
// A failure is one JSON line on stderr, exit status 2 for wrong usage and 1 for anything else; its stack
// only with LOG_LEVEL=debug. What a command is for — help, the version, a backup's or restore's or
// keys encrypt's result — is printed as it is; everything else the process writes is the JSON log
// (src/log.ts, docs/operations.md).
//
// Only what help and version need is imported up front; a command loads the service when it runs, so
// `agentbank --help` answers at once.
import { parseArgs } from "node:util";
import { COMMANDS, commandHelp, generalHelp, isCommand, parseOptions, UsageError, type CommandName } from "./cli/commands";
import { config } from "./config";
import { exitWith, flushLog } from "./log";
import { VERSION } from "./version";

async function backupCommand(command: "backup" | "restore", file: string): Promise<void> {
  const [{ boot, loadConfig }, { closeDatabase, read }, { backupSqlite, restoreSqlite }, { checkLedger }] = await Promise.all([
    import("./boot"),
    import("./db"),
    import("./db/backup"),
    import("./ledger/check"),
  ]);
  const { databaseUrl, databasePath } = loadConfig();
  if (databaseUrl) throw new UsageError("DATABASE_URL is set: back PostgreSQL up with its own tools (pg_dump, base backups, PITR)");
  process.umask(0o077);
  if (command === "backup") {
    const { bytes } = backupSqlite(databasePath, file);
    console.log(JSON.stringify({ backup: file, of: databasePath, bytes }));
    return;
  }
  restoreSqlite(file, databasePath);
  // The restored file is opened as the service would open it: migrations applied, then the ledger checked.
  await boot();
  const check = await read(checkLedger());
  await closeDatabase();
  flushLog();
  console.log(JSON.stringify({ restored: file, into: databasePath, ledgerOk: check.ok, entries: check.entries, accounts: check.accounts }));
  if (!check.ok) process.exit(1);
}

async function run(name: CommandName, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: parseOptions(name), allowPositionals: true, strict: true });
  if (values.help) return console.log(commandHelp(name));
  const expected = COMMANDS[name].positionals;
  if (positionals.length !== expected) {
    throw new UsageError(expected ? `expected ${expected} argument: ${COMMANDS[name].usage}` : `unexpected argument "${positionals[0]}"`);
  }
  switch (name) {
    case "serve": {
      const [{ boot }, { serve }] = await Promise.all([import("./boot"), import("./cli/serve")]);
      await serve(await boot());
      return;
    }
    case "dev":
      return (await import("./cli/dev")).dev({ fresh: values.fresh === true, public: values.public === true });
    case "mcp":
      return (await import("./cli/mcp-stdio")).runMcpStdio(args);
    case "backup":
    case "restore":
      return backupCommand(name, positionals[0]!);
    case "keys": {
      if (positionals[0] !== "encrypt") throw new UsageError(`unknown keys command "${positionals[0]}": ${COMMANDS.keys.usage}`);
      const [{ loadConfig }, { encryptMnemonic }] = await Promise.all([import("./boot"), import("./cli/keys")]);
      const config = loadConfig();
      process.umask(0o077);
      console.log(JSON.stringify(encryptMnemonic(config)));
      return;
    }
  }
}

/** parseArgs's own errors (unknown option, missing value) are usage errors. */
const isParseError = (error: unknown) => /^ERR_PARSE_ARGS_/.test(String((error as { code?: unknown })?.code));

function fail(error: unknown, help: string): never {
  let message = String((error as Error)?.message ?? error).replace(/\s*\n\s*/g, " ");
  if (error instanceof UsageError || isParseError(error)) {
    // parseArgs goes on about how to pass a positional starting with "-": its first sentence is enough.
    if (isParseError(error)) message = message.split(". ")[0]!;
    exitWith(2, `${message} (${help})`);
  }
  exitWith(1, message, config?.logLevel === "debug" && error instanceof Error ? { stack: error.stack } : {});
}

// A crash after the start (a throw in a timer, a rejection nobody awaited) stops the process as Bun
// would, with exit status 1, but as one JSON line.
const crash = (error: unknown) => exitWith(1, `crashed: ${String((error as Error)?.message ?? error)}`, { stack: String((error as Error)?.stack ?? error).slice(0, 4000) });
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

const argv = process.argv.slice(2);
const [first, ...rest] = argv;
// A leading option (or none) belongs to the default command.
const [name, args] = first === undefined || first.startsWith("-") ? ["serve", argv] : [first, rest];
try {
  if (first === "version" || first === "--version" || first === "-v") {
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    console.log(`agentbank ${VERSION}`);
  } else if (first === "help" || first === "--help" || first === "-h") {
    const topic = rest[0];
    if (topic !== undefined && !isCommand(topic)) throw new UsageError(`unknown command "${topic}"`);
    console.log(topic === undefined ? generalHelp() : commandHelp(topic));
  } else {
    if (!isCommand(name)) throw new UsageError(`unknown command "${name}"`);
    await run(name, args);
  }
} catch (error) {
  fail(error, isCommand(name) ? `agentbank ${name} --help` : "agentbank --help");
}
