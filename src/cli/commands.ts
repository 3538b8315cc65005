// What the command line offers: each command with its options and the environment it reads, and the
// help printed from that (`agentbank --help`, `agentbank <command> --help`). The binary runs alone, so
// the help says everything without pointing at a README; the variables and defaults come from
// config.ts's table.
import { VARIABLES, type Variable } from "../config";
import { VERSION } from "../version";

/** Wrong usage of the command line: exit status 2. */
export class UsageError extends Error {}

type Option = { type: "string" | "boolean"; short?: string; value?: string; help: string };
type Command = {
  usage: string;
  summary: string;
  /** Lines after the summary: what it does, in more words. */
  about: string[];
  options: Record<string, Option>;
  /** How many positional arguments it takes (exactly). */
  positionals: number;
  variables: readonly Variable[];
  /** Variables read by this command alone (not the service's). */
  own?: [name: string, meaning: string][];
};

const ALL = Object.keys(VARIABLES) as Variable[];
/** Set by `agentbank dev` itself. */
const SET_BY_DEV: Variable[] = ["DATABASE_PATH", "DATABASE_URL", "ADMIN_API_KEY", "TEST_CLOCK"];

export const COMMANDS = {
  serve: {
    usage: "agentbank [serve]",
    summary: "run the service (the default command)",
    about: [
      "Listens on HOST:PORT (alone: a port another process listens on stops the start, exit 1) and logs one line whose",
      "text holds `listening on http://HOST:PORT` and where the API reference is, then whether the operator routes are on.",
      "Every line it writes is one JSON object (level, t, msg). SIGTERM or SIGINT: stops accepting, answers what is in",
      "flight, closes the database.",
    ],
    options: {},
    positionals: 0,
    variables: ALL,
  },
  dev: {
    usage: "agentbank dev [--fresh] [--public]",
    summary: "a development start: test clock, a generated operator key and two funded demo agents, printed once",
    about: [
      "Runs on its own SQLite file ./data/dev/agentbank.db (created, or kept from an earlier `agentbank dev`), never on",
      "the production database: DATABASE_PATH, DATABASE_URL, ADMIN_API_KEY and TEST_CLOCK are set by this command. Each start",
      "prints a new operator key, registers two demo agents with 100 USDC each (operator deposits) and prints their keys, curl",
      "lines for register, fund, pay and history, and the MCP configuration. Never for production.",
      "It listens only on a loopback HOST (127.0.0.0/8, ::1, localhost): any other HOST, from the environment or .env, stops",
      "the start (exit status 2) unless --public is given, since the operator routes and the test clock would be reachable.",
    ],
    options: {
      fresh: { type: "boolean", help: "delete the development database first and start from nothing" },
      public: { type: "boolean", help: "listen on a HOST that is not loopback anyway (with a warning): the operator routes and test clock are open to it" },
    },
    positionals: 0,
    variables: ALL.filter((name) => !SET_BY_DEV.includes(name)),
  },
  mcp: {
    usage: "agentbank mcp [--url URL] [--key KEY]",
    summary: "the MCP server on stdio, for one agent",
    about: [
      "With --url, each tool call is a request to the agentbank running at URL. Without, the tools run in this process on",
      "the local database (DATABASE_PATH or DATABASE_URL and the service's other variables) while no service holds it.",
      "Configuration for an MCP client:",
      '  { "mcpServers": { "agentbank": { "command": "agentbank", "args": ["mcp", "--url", "http://127.0.0.1:3000"],',
      '                                   "env": { "AGENTBANK_API_KEY": "pp_..." } } } }',
    ],
    options: {
      url: { type: "string", value: "URL", help: "a running agentbank, e.g. http://127.0.0.1:3000 (default: AGENTBANK_URL)" },
      key: { type: "string", value: "KEY", help: "the agent's API key pp_... (default: AGENTBANK_API_KEY)" },
    },
    positionals: 0,
    variables: ["DATABASE_PATH", "DATABASE_URL", "LOG_LEVEL"],
    own: [
      ["AGENTBANK_URL", "the agentbank to call when --url is not given (unset: the local database)"],
      ["AGENTBANK_API_KEY", "the agent's API key when --key is not given"],
    ],
  },
  backup: {
    usage: "agentbank backup <file>",
    summary: "write a consistent copy of the SQLite database to <file>, while the service runs",
    about: [
      "<file> must not exist; it is written 0600. On PostgreSQL (DATABASE_URL) use pg_dump or base backups instead.",
      "The service also offers the same copy at GET /admin/backup.",
    ],
    options: {},
    positionals: 1,
    variables: ["DATABASE_PATH", "DATABASE_URL", "LOG_LEVEL"],
  },
  restore: {
    usage: "agentbank restore <file>",
    summary: "put a backup in place of the SQLite database (service stopped), migrate it and check the ledger",
    about: [
      "Checks that <file> is an intact agentbank database, swaps it in with one rename, applies the migrations and checks",
      "the ledger (exit 1 if it does not balance). Migrations only go forward: restoring a backup taken by an older version",
      "upgrades it; an older version cannot open a newer database.",
    ],
    options: {},
    positionals: 1,
    variables: ["DATABASE_PATH", "DATABASE_URL", "LOG_LEVEL"],
  },
  keys: {
    usage: "agentbank keys encrypt",
    summary: "encrypt the master mnemonic beside the database with a passphrase (or change the passphrase)",
    about: [
      "Reads agentbank.mnemonic in DATABASE_PATH's folder (or MASTER_MNEMONIC), writes agentbank.mnemonic.enc (scrypt and",
      "AES-256-GCM, 0600), reads it back, and only when it opens to the same phrase overwrites and removes the plain file. The",
      "service then needs the passphrase at every start. On an encrypted file, NEW_MASTER_MNEMONIC_PASSPHRASE changes its",
      "passphrase (the current one in MASTER_MNEMONIC_PASSPHRASE or the credential). Prints one JSON line; docs/deploy.md has the steps.",
    ],
    options: {},
    positionals: 1,
    variables: ["DATABASE_PATH", "MASTER_MNEMONIC", "MASTER_MNEMONIC_PASSPHRASE", "LOG_LEVEL"],
    own: [
      ["NEW_MASTER_MNEMONIC_PASSPHRASE", "the new passphrase, to change the passphrase of agentbank.mnemonic.enc"],
      ["CREDENTIALS_DIRECTORY", "set by systemd (LoadCredentialEncrypted=): the passphrase is read from its master-mnemonic-passphrase file when MASTER_MNEMONIC_PASSPHRASE is unset"],
    ],
  },
} satisfies Record<string, Command>;

export type CommandName = keyof typeof COMMANDS;

export const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** The options node:util parseArgs takes for a command, with --help/-h added. */
export function parseOptions(name: CommandName) {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = { help: { type: "boolean", short: "h" } };
  for (const [flag, option] of Object.entries(COMMANDS[name].options as Record<string, Option>)) {
    options[flag] = option.short ? { type: option.type, short: option.short } : { type: option.type };
  }
  return options;
}

const column = (rows: [string, string][], indent = "  ") => {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`).join("\n");
};

function variablesText(names: readonly Variable[], own: [string, string][] = []): string {
  const rows: [string, string][] = names.map((name) => [name, `${VARIABLES[name].meaning} (default: ${VARIABLES[name].default || "unset"})`]);
  return column([...own, ...rows]);
}

export function commandHelp(name: CommandName): string {
  const command: Command = COMMANDS[name];
  const options: [string, string][] = Object.entries(command.options).map(([flag, option]) => [
    `--${flag}${option.value ? ` ${option.value}` : ""}`,
    option.help,
  ]);
  options.push(["-h, --help", "this text"]);
  return [
    `usage: ${command.usage}`,
    "",
    command.summary,
    ...command.about,
    "",
    "options:",
    column(options),
    "",
    "environment (a .env file in the working directory is read too):",
    variablesText(command.variables, command.own),
  ].join("\n");
}

export function generalHelp(): string {
  const commands: [string, string][] = Object.values(COMMANDS as Record<string, Command>).map((command) => [command.usage, command.summary]);
  commands.push(["agentbank version", "print the version (also --version, -v)"], ["agentbank help [command]", "this text, or a command's (also <command> --help)"]);
  return [
    `agentbank ${VERSION}: a self-hosted financial service for AI agents (HTTP/JSON, MCP)`,
    "",
    "usage:",
    column(commands),
    "",
    "environment (a .env file in the working directory is read too; a bad value stops the start with one line naming it):",
    variablesText(Object.keys(VARIABLES) as Variable[]),
    "",
    "Once it runs: the API reference at /swagger, the OpenAPI document at /swagger/json, the owner console at /console,",
    "MCP at /mcp, a description for models at /llms.txt, probes at /health and /health/ready.",
    "Exit status: 0 done, 1 failed, 2 wrong usage.",
  ].join("\n");
}
